#!/usr/bin/env bash
# Builds .device/ (git-ignored): the lab's Node commands for a GPU machine that has Node but no npm registry and no
# node_modules. The device tool copies the working tree, not node_modules, and carries at most 64 MiB, so the CLI
# is bundled with esbuild and only what the bundles load at run time is copied beside them:
#   .device/now/cli/{bench,experiment,sweep}.mjs  this checkout's commands (and their shared chunks); the CLIs
#                                                 find presets and teachers in public/ beside cli/, here a link
#                                                 to the checkout's public/
#   .device/before/cli/…, .device/before/public/  the same commands at BASELINE (optional), with that commit's
#                                                 presets and teachers, for a before/after in one sitting
#   .device/node_modules/webgpu                   Dawn's linux-x64 addon (about 21 MB) and its loader
#   .device/node_modules/@tensorflow/tfjs-backend-wasm   the .wasm binaries, for the wasm rows of the bench
#   .device/gl/libvulkan1_*.deb                   the Vulkan loader, unpacked there only when the machine lacks it
# Usage: npm run bench:device-kit -- [BASELINE_COMMIT] (or bash bench/device/kit.sh …); bench/device/check.sh then
# runs on the machine.
# KIT_DIR=path builds elsewhere (the tests do); KIT_NO_GL=1 skips fetching the Vulkan loader package.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
kit=${KIT_DIR:-.device}
# the folder is emptied first: never the repository itself or a folder above it
k=$(realpath -m "$kit")
if [ "$k" = / ] || [ "$k" = "$root" ] || [[ "$root" == "$k"/* ]]; then
  echo "kit: KIT_DIR=$kit would hold the repository; name a folder of its own" >&2
  exit 2
fi
rm -rf "$kit"
mkdir -p "$kit/gl"

# The bundles keep `webgpu` external (a native addon); `require`, `__dirname` and `__filename` are provided for the
# CommonJS parts of tfjs (the wasm backend's loader uses them).
# Minified, with the code the commands share (tfjs above all) in common chunks inside cli/ (whose code finds public/
# one folder up): about 3.4 MB a checkout.
bundle() { # SOURCE_ROOT DEST [MORE_ENTRIES…] (paths under SOURCE_ROOT; each lands at the same path under DEST)
  local src=$1 dest=$2
  shift 2
  npx esbuild "$src/cli/bench.ts" "$src/cli/experiment.ts" "$src/cli/sweep.ts" "${@/#/$src/}" --bundle --splitting \
    --minify --platform=node --format=esm --main-fields=module,main --outbase="$src" --outdir="$dest" \
    --out-extension:.js=.mjs \
    --chunk-names=cli/chunk-[hash] --external:webgpu --log-level=warning \
    --banner:js="import { createRequire as __kitRequire } from 'node:module'; import { fileURLToPath as __kitPath } from 'node:url'; import { dirname as __kitDir } from 'node:path'; const require = __kitRequire(import.meta.url); const __filename = __kitPath(import.meta.url); const __dirname = __kitDir(__filename);"
}
bundle . "$kit/now" bench/memberBatching.ts
ln -s "$(realpath --relative-to="$kit/now" public)" "$kit/now/public"
git rev-parse HEAD >"$kit/now/COMMIT"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then echo "dirty" >>"$kit/now/COMMIT"; fi

if [ $# -ge 1 ]; then
  base=$(git rev-parse --verify "$1^{commit}")
  tree=$(mktemp -d)/before
  git worktree add --detach --quiet "$tree" "$base"
  ln -s "$root/node_modules" "$tree/node_modules"
  bundle "$tree" "$kit/before"
  mkdir -p "$kit/before/public"
  cp -r "$tree/public/presets" "$tree/public/teachers" "$kit/before/public/"
  echo "$base" >"$kit/before/COMMIT"
  git worktree remove --force "$tree"
fi

wg=node_modules/webgpu
mkdir -p "$kit/$wg/dist/linux-x64"
cp "$wg/package.json" "$wg/index.js" "$kit/$wg/"
cp "$wg/dist/linux-x64/dawn.node" "$kit/$wg/dist/linux-x64/"
wasm=node_modules/@tensorflow/tfjs-backend-wasm
mkdir -p "$kit/$wasm/dist"
cp "$wasm/package.json" "$kit/$wasm/"
cp "$wasm"/dist/*.wasm "$wasm/dist/tf-backend-wasm.node.js" "$kit/$wasm/dist/"

[ "${KIT_NO_GL:-0}" = 1 ] || (cd "$kit/gl" && timeout 120 apt-get download libvulkan1 >/dev/null 2>&1) || echo "kit: no libvulkan1 package fetched (apt unreachable); the machine must have a Vulkan loader"
du -sh "$kit"
