// The app's root URL — where public/ (presets, teachers) is served — seen from the page and from the workers alike,
// wherever the build is published (`/`, `/retirelab/`, …). Vite rewrites `new URL('/<public file>', import.meta.url)`
// into that file's URL relative to this module's own bundle chunk (the build's base is relative, see
// vite.publish.ts), so the root is found without knowing the path the host serves the app at. A worker's
// `self.location` is its chunk (`…/assets/x.js`) and `import.meta.env.BASE_URL` is only `./`: neither is the root.
// The anchor is presets/index.json, not an SVG: the dev server inlines small SVGs as data: URLs.
export function appRoot(): URL {
  return new URL('../', new URL('/presets/index.json', import.meta.url));
}
