import { join } from 'node:path';
import {
  BaseType,
  Context,
  type CompletedConfig,
  DEFAULT_CONFIG,
  type NodeParser,
  SchemaGenerator,
  type SubNodeParser,
  createFormatter,
  createParser,
} from 'ts-json-schema-generator';
import ts from 'typescript';
import type { PackageSource } from './discover';
import type { JsonSchema } from './model';

/** ts-json-schema-generator has no parser for `import('…').Status` types: resolved as a type reference would be. */
class ImportTypeNodeParser implements SubNodeParser {
  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly child: NodeParser,
  ) {}

  supportsNode(node: ts.Node): boolean {
    return ts.isImportTypeNode(node);
  }

  createType(node: ts.ImportTypeNode, context: Context): BaseType {
    let symbol = this.checker.getSymbolAtLocation(node.qualifier ?? node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias)
      symbol = this.checker.getAliasedSymbol(symbol);
    const declaration = symbol?.declarations?.[0];
    if (!declaration) throw new Error(`cannot resolve ${node.getText()}`);
    const sub = new Context(node);
    for (const argument of node.typeArguments ?? [])
      sub.pushArgument(this.child.createType(argument, context));
    return this.child.createType(declaration, sub);
  }
}

export interface PackageSchema {
  definitions: Record<string, JsonSchema>;
  unknown: string[];
}

export function definitionName(raw: string): string {
  return raw.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/_+$/, '');
}

function renameRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => renameRefs(item, names));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string' && child.startsWith('#/definitions/')) {
      const raw = decodeURIComponent(child.slice('#/definitions/'.length));
      out[key] = `#/definitions/${names.get(raw) ?? definitionName(raw)}`;
    } else {
      out[key] = renameRefs(child, names);
    }
  }
  return out;
}

/** One program over every contracts lib; types are looked up per package, so two majors may both have a `TrafficEvent`. */
export class SchemaBuilder {
  private readonly program: ts.Program;
  private readonly checker: ts.TypeChecker;
  private readonly generator: SchemaGenerator;

  constructor(
    private readonly root: string,
    files: string[],
  ) {
    const base = ts.readConfigFile(join(root, 'tsconfig.base.json'), ts.sys.readFile);
    const parsed = ts.parseJsonConfigFileContent(base.config, ts.sys, root);
    this.program = ts.createProgram(
      files.map((file) => join(root, file)),
      { ...parsed.options, noEmit: true },
    );
    this.checker = this.program.getTypeChecker();
    const config: CompletedConfig = {
      ...DEFAULT_CONFIG,
      expose: 'export',
      topRef: true,
      jsDoc: 'extended',
      // Tolerant readers: a schema never forbids fields it does not know (a newer writer may add
      // optional ones). The golden test closes the objects itself, to catch misspelt fields.
      additionalProperties: true,
      skipTypeCheck: true,
      sortProps: true,
      encodeRefs: false,
      functions: 'hide',
    };
    const parser = createParser(this.program, config, (chain) => {
      // The chain given to augmentors is the ChainNodeParser itself (a NodeParser too).
      chain.addNodeParser(new ImportTypeNodeParser(this.checker, chain as unknown as NodeParser));
    });
    this.generator = new SchemaGenerator(this.program, parser, createFormatter(config), config);
  }

  private exportedTypes(source: PackageSource): Map<string, ts.Node> {
    const types = new Map<string, ts.Node>();
    for (const file of source.files) {
      const sourceFile = this.program.getSourceFile(join(this.root, file));
      const moduleSymbol = sourceFile && this.checker.getSymbolAtLocation(sourceFile);
      if (!moduleSymbol) continue;
      for (const exported of this.checker.getExportsOfModule(moduleSymbol)) {
        const symbol =
          exported.flags & ts.SymbolFlags.Alias
            ? this.checker.getAliasedSymbol(exported)
            : exported;
        const declaration = symbol.declarations?.find(
          (node) =>
            ts.isInterfaceDeclaration(node) ||
            ts.isTypeAliasDeclaration(node) ||
            ts.isEnumDeclaration(node),
        );
        if (declaration && !types.has(exported.name)) types.set(exported.name, declaration);
      }
    }
    return types;
  }

  build(source: PackageSource, messages: string[]): PackageSchema {
    const exported = this.exportedTypes(source);
    const unknown = messages.filter((name) => !exported.has(name));
    const roots = messages.filter((name) => exported.has(name));
    const definitions: Record<string, JsonSchema> = {};
    const origin = new Map<string, string>();
    for (const name of roots) {
      // One root at a time, with a top-level $ref, so the message itself is a definition too.
      const schema = this.generator.createSchemaFromNodes([exported.get(name)!]) as {
        definitions?: Record<string, JsonSchema>;
      };
      const raw = schema.definitions ?? {};
      const names = new Map(Object.keys(raw).map((key) => [key, definitionName(key)]));
      for (const [key, definition] of Object.entries(raw)) {
        const renamed = names.get(key)!;
        const value = renameRefs(definition, names) as JsonSchema;
        const previous = definitions[renamed];
        if (previous && JSON.stringify(previous) !== JSON.stringify(value)) {
          throw new Error(
            `${source.name}: two different types are both named ${renamed} (reached from ${origin.get(renamed)} and ${name})`,
          );
        }
        definitions[renamed] = value;
        origin.set(renamed, name);
      }
      if (!definitions[name])
        throw new Error(`${source.name}: no definition was generated for ${name}`);
    }
    return { definitions, unknown };
  }
}
