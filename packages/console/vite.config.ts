// Builds the console into dist/: index.html and hashed files under dist/assets/, which the admin
// listener serves. The page runs under `default-src 'self'`: no inline script, no inline style,
// no data: URL, nothing from another origin.
import { defineConfig, type Plugin } from 'vite'

/** Fails the build when a module from one of these packages reaches the bundle (the contract is for types only). */
function refusePackages(names: string[]): Plugin {
  return {
    name: 'animal-store:refuse-packages',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue
        const found = chunk.moduleIds.find((id) => names.some((name) => id.includes(`/node_modules/${name}/`)))
        if (found !== undefined) this.error(`${found} is in the console's bundle: import its types with \`import type\``)
      }
    }
  }
}

export default defineConfig({
  base: '/',
  plugins: [refusePackages(['typebox'])],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Every asset a file of its own: a data: URL would need `img-src data:` in the CSP.
    assetsInlineLimit: 0,
    // The polyfill is an inline script, which the CSP refuses.
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false
  },
  server: {
    // `npm run dev -w @animal-store/console` next to `npm start`: the operator API from the admin port.
    proxy: { '/admin': 'http://127.0.0.1:8081' }
  }
})
