import { dirname, join, relative } from 'node:path';
import * as ts from 'typescript';

/**
 * What `npm run build` (tsconfig.build.json) compiles into dist/, and so into every image: the
 * files TypeScript itself would emit, the configured ones plus everything they import.
 */
const ROOT = join(__dirname, '..', '..');

function buildProgram(configFile = 'tsconfig.build.json'): ts.Program {
  const configPath = join(ROOT, configFile);
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error(`cannot read ${configPath}`);
  expect(config.errors).toEqual([]);
  return ts.createProgram({ rootNames: config.fileNames, options: config.options });
}

/** Test code: specs, a project's test/ folder (its kits), the system tests, the test-kit libs. */
const isTestCode = (file: string) =>
  /\.spec\.ts$/.test(file) ||
  /(^|\/)test\//.test(file) ||
  /^libs\/(testing|adapter-conformance)\//.test(file);

describe('the build output', () => {
  const program = buildProgram();
  const built = program
    .getSourceFiles()
    .filter((file) => !file.isDeclarationFile && !program.isSourceFileFromExternalLibrary(file));
  const files = built.map((file) => relative(ROOT, file.fileName));

  it('holds every service and tool entry point', () => {
    const entryPoints = files.filter((file) => file.endsWith('/src/main.ts')).map(dirname);
    expect(entryPoints).toEqual(
      expect.arrayContaining([
        'apps/budget-adapter/src',
        'apps/enforcement-service/src',
        'apps/evaluator/src',
        'apps/experiment-service/src',
        'apps/gateway/src',
        'apps/inspection-rules-service/src',
        'tools/demo/src',
        'tools/launcher/src',
        'tools/rollout/src',
        'tools/traffic-importer/src',
      ]),
    );
  });

  it('holds no test code: no spec, no test kit, nothing from libs/testing/kit or libs/testing/adapter-conformance', () => {
    expect(files.filter(isTestCode)).toEqual([]);
  });

  it('has no shipped file import test code (which would pull it into the build)', () => {
    const shipped = built.filter((file) => !isTestCode(relative(ROOT, file.fileName)));
    const importsOfTestCode = shipped.flatMap((file) =>
      ts.preProcessFile(file.text, true, true).importedFiles.flatMap(({ fileName: specifier }) => {
        const resolved = ts.resolveModuleName(
          specifier,
          file.fileName,
          program.getCompilerOptions(),
          ts.sys,
        ).resolvedModule;
        const target =
          resolved && !resolved.isExternalLibraryImport
            ? relative(ROOT, resolved.resolvedFileName)
            : undefined;
        return target && isTestCode(target)
          ? [`${relative(ROOT, file.fileName)} imports ${specifier}`]
          : [];
      }),
    );
    expect(importsOfTestCode).toEqual([]);
  });
});

/** The files a program compiles from the repository (neither declarations nor packages). */
const compiledFiles = (program: ts.Program) =>
  program
    .getSourceFiles()
    .filter((file) => !file.isDeclarationFile && !program.isSourceFileFromExternalLibrary(file))
    .map((file) => relative(ROOT, file.fileName));

describe('the service image build (deploy/Dockerfile: npm run build:image, tsconfig.image.json)', () => {
  const files = compiledFiles(buildProgram('tsconfig.image.json'));

  it('holds every service and the program the database roles Job runs from a service image', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'apps/budget-adapter/src/main.ts',
        'apps/enforcement-service/src/main.ts',
        'apps/evaluator/src/main.ts',
        'apps/experiment-service/src/main.ts',
        'apps/gateway/src/main.ts',
        'apps/inspection-rules-service/src/main.ts',
        'tools/launcher/src/provision-postgres.ts',
      ]),
    );
  });

  it('holds neither the bus provisioning step (its settings, the permission matrix of every NATS user) nor test code', () => {
    expect(files.filter((file) => file.startsWith('tools/provision/'))).toEqual([]);
    expect(files.filter(isTestCode)).toEqual([]);
  });
});

describe('the bus provisioning image build (APP=bus-provision: npm run build:provision-image)', () => {
  const files = compiledFiles(buildProgram('tsconfig.provision-image.json'));

  it('holds the provisioning step and no service', () => {
    expect(files).toContain('tools/provision/src/main.ts');
    expect(files.filter((file) => file.startsWith('apps/'))).toEqual([]);
    expect(files.filter(isTestCode)).toEqual([]);
  });
});
