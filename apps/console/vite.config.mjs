// @ts-check
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The web console, built into dist/apps/console; the gateway serves it at /console. */
export default defineConfig({
  root: here,
  base: '/console/',
  logLevel: 'warn',
  // The console shares the contracts' resource-name grammar (formatPolicyName and kin).
  resolve: {
    alias: {
      '@rollout/contracts': fileURLToPath(
        new URL('../../libs/contracts/src/index.ts', import.meta.url),
      ),
    },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/apps/console', import.meta.url)),
    emptyOutDir: true,
    // Every asset a file of its own: the Content-Security-Policy allows no inline data but images.
    assetsInlineLimit: 0,
    target: 'es2022',
    // The charts' chunk (ECharts, about 600 kB) is loaded only when a chart is first drawn.
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      // The contracts' modules only declare (their top-level calls build subject tables): the
      // console keeps what it imports, the names module, not every package's registry.
      treeshake: { moduleSideEffects: (id) => !id.includes('/libs/contracts/') },
    },
  },
});
