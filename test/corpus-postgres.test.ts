import { corpusSuite } from './corpus-suite.js';

corpusSuite('postgres');
