-- The code graph of one or more projects: Go, checked by the Go type checker, and Python,
-- JavaScript, TypeScript, Java, Rust, C and C++, parsed by tree-sitter. Every name below is what the model's queries
-- use: graph://schema serves this file. Positions are 1-based; columns count bytes.

-- A project is a directory indexed as a whole: a module, or a workspace of several.
CREATE TABLE IF NOT EXISTS projects (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE, -- the module path, or the directory's name
  root       TEXT NOT NULL UNIQUE, -- absolute path of the directory
  indexed_at TEXT                  -- when the last index run ended (RFC 3339)
);

-- A package of a project: a Go package with its tests (an external test package, package
-- foo_test, is a package of its own whose path ends in "_test"); a Python module
-- ("json.decoder"); a JavaScript or TypeScript module, its file without the extension
-- ("src/util/strings"); a Java package ("com.example.user"); a Rust module ("shop::users");
-- a C or C++ file ("src/util.c").
CREATE TABLE IF NOT EXISTS packages (
  id         INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL,
  language   TEXT NOT NULL,        -- go, python, typescript (JavaScript and TypeScript), java, rust, c (C and C++)
  path       TEXT NOT NULL,        -- import path, e.g. "net/http", or the module's as above
  name       TEXT NOT NULL,        -- package name, e.g. "http"
  dir        TEXT NOT NULL,        -- directory, relative to the project's root
  hash       TEXT NOT NULL,        -- of its files and its dependencies' hashes (incremental indexing)
  errors     TEXT NOT NULL DEFAULT '', -- type errors, one per line ('' when it type-checks)
  UNIQUE (project_id, path)
);

-- A source file.
CREATE TABLE IF NOT EXISTS files (
  id         INTEGER PRIMARY KEY,
  package_id INTEGER NOT NULL,
  path       TEXT NOT NULL,        -- relative to the project's root, e.g. "net/http/server.go"
  lines      INTEGER NOT NULL,
  is_test    INTEGER NOT NULL      -- 1 for a _test.go file (0 for other languages)
);

-- Every name the graph knows, declared in the project or only used by it (such as
-- "fmt.Println" in a project that does not hold package fmt). Edges point at symbols.
-- Qualified names: "path/to/pkg" for a package, "path/to/pkg.Name" for a package-level
-- function, type, variable or constant, "path/to/pkg.Type.Method" for a method (also of an
-- interface) and "path/to/pkg.Type.Field" for a field, whatever the receiver's pointerness.
-- The other languages alike, after their module's path: "json.decoder.JSONDecoder.raw_decode",
-- "src/util/strings.capitalize", "com.example.user.UserService.createUser" (a Java
-- constructor is "Class.<init>", overloads share their name); Rust and C++ with "::":
-- "shop::users::UserService::create_user", "geo::Square::area"; C functions by their name.
CREATE TABLE IF NOT EXISTS symbols (
  id             INTEGER PRIMARY KEY,
  project_id     INTEGER NOT NULL,
  qualified_name TEXT NOT NULL,
  UNIQUE (project_id, qualified_name)
);

-- A declaration in the project's source.
CREATE TABLE IF NOT EXISTS nodes (
  id             INTEGER PRIMARY KEY,
  symbol_id      INTEGER NOT NULL,  -- symbols.id
  project_id     INTEGER NOT NULL,
  package_id     INTEGER NOT NULL,
  kind           TEXT NOT NULL,     -- package, struct, interface, type, alias, func, method, field, var, const;
                                    -- class, enum, trait, union, module (the other languages)
  name           TEXT NOT NULL,     -- the identifier, e.g. "ServeHTTP"
  qualified_name TEXT NOT NULL,     -- as in symbols, e.g. "net/http.HandlerFunc.ServeHTTP"
  parent_id      INTEGER,           -- symbols.id of the type of a method or field
  file_id        INTEGER,           -- files.id (NULL for a package)
  line           INTEGER,           -- where its name is
  col            INTEGER,
  end_line       INTEGER,           -- last line of the declaration
  exported       INTEGER NOT NULL,
  signature      TEXT NOT NULL,     -- e.g. "func (f HandlerFunc) ServeHTTP(w ResponseWriter, r *Request)"
  doc            TEXT NOT NULL      -- the doc comment
);

-- Relations between symbols. kind is one of
--   calls       src (a function, method, or package-level variable whose initializer makes
--               the call) calls dst at (file, line, col), where the callee's name is; a call
--               of an interface method is a call of that method ("io.Writer.Write")
--   references  src uses dst at (file, line, col); every call is also a reference
--   implements  type src implements interface dst (by method sets, of *T for a type T)
--   embeds      struct or interface src embeds dst
--   imports     package src imports package dst
--   defines     package src declares dst; a type src declares method or field dst
--   extends     class src has base class dst (Python, TypeScript, Java); implements, in
--               TypeScript and Java, a class that says it implements an interface
-- and resolution says how exact the edge is: typed (the Go type checker resolved it), scope
-- (resolved through the file's scopes, its imports and the enclosing class: a local
-- function, an imported name, self.m or this.m) or name (the only declaration of that name
-- in the project, the receiver's type being unknown: a guess).
CREATE TABLE IF NOT EXISTS edges (
  project_id INTEGER NOT NULL,
  package_id INTEGER NOT NULL,      -- the package whose source holds the edge
  kind       TEXT NOT NULL,
  src        INTEGER NOT NULL,      -- symbols.id
  dst        INTEGER NOT NULL,      -- symbols.id
  file_id    INTEGER,               -- files.id, where the relation is written (NULL for implements)
  line       INTEGER,
  col        INTEGER,
  resolution TEXT NOT NULL DEFAULT 'typed'
);

-- The method sets of the project's package-level types, and of the interfaces of the packages
-- they import, from which implements is computed.
CREATE TABLE IF NOT EXISTS method_sets (
  project_id   INTEGER NOT NULL,
  package_id   INTEGER NOT NULL,    -- the package whose index run wrote the row
  type_id      INTEGER NOT NULL,    -- symbols.id of the type
  is_interface INTEGER NOT NULL,
  external     INTEGER NOT NULL,    -- 1 for an interface of an imported package outside the project
  method       TEXT NOT NULL,       -- the method's name ("pkg/path.name" when unexported)
  fingerprint  TEXT NOT NULL,       -- its signature, without names
  method_id    INTEGER NOT NULL     -- symbols.id of the method (of the embedded type, when promoted)
);

CREATE INDEX IF NOT EXISTS nodes_symbol ON nodes (symbol_id);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols (qualified_name);
CREATE INDEX IF NOT EXISTS nodes_name ON nodes (name);
CREATE INDEX IF NOT EXISTS nodes_package ON nodes (package_id);
CREATE INDEX IF NOT EXISTS edges_dst ON edges (dst, kind);
CREATE INDEX IF NOT EXISTS edges_src ON edges (src, kind);
CREATE INDEX IF NOT EXISTS edges_package ON edges (package_id);
CREATE INDEX IF NOT EXISTS files_package ON files (package_id);
CREATE INDEX IF NOT EXISTS method_sets_package ON method_sets (package_id);
CREATE INDEX IF NOT EXISTS method_sets_type ON method_sets (type_id);
CREATE INDEX IF NOT EXISTS method_sets_method ON method_sets (method_id);

-- The same relations with names instead of ids: what most queries want.
CREATE VIEW IF NOT EXISTS edge_names AS
  SELECT e.project_id, e.kind, s.qualified_name AS src, d.qualified_name AS dst,
         f.path AS file, e.line, e.col, e.resolution
  FROM edges e
  JOIN symbols s ON s.id = e.src
  JOIN symbols d ON d.id = e.dst
  LEFT JOIN files f ON f.id = e.file_id;
