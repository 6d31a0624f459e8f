import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Verify = (rawBody: string, header: string, secret: string, now?: number) => boolean;

/** The code block that follows `<!-- recipe:NAME -->` in docs/webhooks.md, exactly as a reader copies it. */
export function recipe(name: string): string {
  const doc = readFileSync(new URL('../docs/webhooks.md', import.meta.url), 'utf8');
  const at = doc.indexOf(`<!-- recipe:${name} -->`);
  if (at < 0) throw new Error(`docs/webhooks.md has no recipe ${name}`);
  const block = doc.slice(at).match(/```\w+\n([\s\S]*?)```/);
  if (!block?.[1]) throw new Error(`recipe ${name} has no code block`);
  return block[1];
}

/** The Node v2 recipe from the docs, loaded as a module. */
export async function nodeRecipe(): Promise<Verify> {
  const file = join(mkdtempSync(join(tmpdir(), 'ruta-recipe-')), 'verify.mjs');
  writeFileSync(file, `${recipe('node-v2')}\nexport { verifyWebhook };\n`);
  return (await import(pathToFileURL(file).href)).verifyWebhook as Verify;
}

/** The Python v2 recipe from the docs, run by python3 on the given delivery. */
export function pythonRecipe(rawBody: string, header: string, secret: string, now: number): boolean {
  const script = `${recipe('python-v2')}
import sys, json
args = json.loads(sys.stdin.read())
print("ok" if verify_webhook(args["body"].encode(), args["header"], args["secret"], args["now"]) else "refused")
`;
  const out = execFileSync('python3', ['-c', script], {
    input: JSON.stringify({ body: rawBody, header, secret, now }),
    encoding: 'utf8',
  });
  return out.trim() === 'ok';
}
