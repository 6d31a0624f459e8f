import { corpusSuite } from './corpus-suite.js';

corpusSuite('sqlite');
