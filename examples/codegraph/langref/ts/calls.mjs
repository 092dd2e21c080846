// Where the TypeScript compiler says each call in a tree of TypeScript sources goes: the
// reference codegraph's TypeScript calls are compared with (langref.Compare). For every call
// and construction under ROOT it asks the type checker for the symbol of the name called
// (through imports' aliases) and prints one JSON object a line:
//
//   {"file": "internal/Observable.ts", "line": 7, "col": 3, "name": "subscribe", "targets": [["internal/Observable.ts", 210]]}
//
// with the file, line and column (1-based) of the name called, and the file and line of the
// name of each of its declarations inside ROOT.
//
// usage: node calls.mjs ROOT
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

const root = fs.realpathSync(process.argv[2]);
const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!e.name.startsWith(".") && e.name !== "node_modules") walk(p);
    } else if (/\.(ts|tsx)$/.test(e.name) && !e.name.endsWith(".d.ts")) {
      files.push(p);
    }
  }
})(root);

const program = ts.createProgram(files, {
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  noEmit: true,
  skipLibCheck: true,
  lib: ["lib.es2020.d.ts", "lib.dom.d.ts"],
});
const checker = program.getTypeChecker();
const rel = (f) => path.relative(root, f);

for (const sf of program.getSourceFiles()) {
  const name = path.resolve(sf.fileName);
  if (!name.startsWith(root + path.sep) || sf.isDeclarationFile) continue;
  const visit = (node) => {
    let called = null;
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const e = node.expression;
      if (ts.isIdentifier(e)) called = e;
      else if (ts.isPropertyAccessExpression(e)) called = e.name;
    }
    if (called) {
      let sym = checker.getSymbolAtLocation(called);
      if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
      const targets = [];
      for (const d of sym?.declarations ?? []) {
        const file = path.resolve(d.getSourceFile().fileName);
        if (!file.startsWith(root + path.sep)) continue;
        const at = d.name ?? d;
        const { line } = d.getSourceFile().getLineAndCharacterOfPosition(at.getStart());
        targets.push([rel(file), line + 1]);
      }
      const { line, character } = sf.getLineAndCharacterOfPosition(called.getStart(sf));
      console.log(JSON.stringify({ file: rel(name), line: line + 1, col: character + 1, name: called.text, targets }));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
