// Tokenizes .uring files with the TextMate grammar through the engine VS Code itself uses
// (vscode-textmate on vscode-oniguruma, from npm), so test_editor_syntax.py can assert the scopes
// an editor would show. Usage: node tokenize.js MODULES_DIR GRAMMAR FILE...; prints JSON
// {file: [[line, start, end, text, [scopes]], ...]} with 1-based lines and 0-based columns.
'use strict';
const fs = require('fs');
const path = require('path');

const [modules, grammarPath, ...files] = process.argv.slice(2);
const need = (name) => require(path.join(modules, name));
const vsctm = need('vscode-textmate');
const onig = need('vscode-oniguruma');

async function main() {
  const wasm = fs.readFileSync(path.join(modules, 'vscode-oniguruma/release/onig.wasm')).buffer;
  await onig.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new onig.OnigScanner(patterns),
      createOnigString: (s) => new onig.OnigString(s),
    }),
    loadGrammar: async (scope) => scope === 'source.uring'
        ? vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath) : null,
  });
  const grammar = await registry.loadGrammar('source.uring');
  if (!grammar) throw new Error(`${grammarPath} does not define scope source.uring`);
  const out = {};
  for (const file of files) {
    let stack = vsctm.INITIAL;
    const tokens = out[file] = [];
    fs.readFileSync(file, 'utf8').split(/\r?\n/).forEach((line, i) => {
      const r = grammar.tokenizeLine(line, stack);
      for (const t of r.tokens) {
        const text = line.slice(t.startIndex, t.endIndex);
        tokens.push([i + 1, t.startIndex, t.endIndex, text, t.scopes]);
      }
      stack = r.ruleStack;
    });
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { console.error(`tokenize.js: ${e.message}`); process.exit(1); });
