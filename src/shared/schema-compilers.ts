import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * The functions compiled from the routes' schemas (validators by AJV, response serialisers by
 * fast-json-stringify), kept by the schema's JSON. Compiling them is most of an app's start: of
 * 0.6 s for `buildApp` and `ready`, 0.4 s (measured 2026-12-05, BENCHMARKS.md "Where the test
 * suite's time goes"). `ruta serve` builds one app, with a cache of its own, so nothing changes
 * there; the test suite builds hundreds of apps in each process and hands them one cache
 * (test/helpers.ts), so a schema compiles once per process. A compiled function holds nothing of
 * the app it was compiled for: AJV's keeps its own instance's formats, which every app sets alike
 * (validation.ts).
 */
export class SchemaCompilers {
  private readonly compiled = new Map<string, unknown>();

  /** The function `compile` makes of `schema` for `use` ("body", "query", "response"…), compiled on first use. */
  once<T>(use: string, schema: unknown, compile: () => T): T {
    const key = `${use}\n${JSON.stringify(schema)}`;
    let fn = this.compiled.get(key) as T | undefined;
    if (fn === undefined) {
      fn = compile();
      this.compiled.set(key, fn);
    }
    return fn;
  }

  /** Fastify's `schemaController`: its own serialiser compiler (fast-json-stringify), through `once`. */
  schemaController(): NonNullable<FastifyServerOptions['schemaController']> {
    return {
      compilersFactory: {
        buildSerializer: (external, options) => {
          const build = SerializerSelector()(external, options);
          const setting = JSON.stringify({ external, options });
          return (route) => this.once(`response ${setting}`, route.schema, () => build(route));
        },
      },
    };
  }
}
