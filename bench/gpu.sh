#!/usr/bin/env bash
# bench/gpu.py on a bare GPU node (make bench-gpu): no venv, no network, only the repo copy and the wheels carried in
# .whl/ (make bench-gpu-wheels fetches them here). Installs the wheels into a private folder, links the repo as the
# `entailgen` package, lets CTranslate2's CUDA 12 build reach the node's cuBLAS (a CUDA 13 image has no
# libcublas.so.12; the 9 cuBLAS calls CTranslate2 makes keep their names and arguments in 13), prints what imports,
# and runs bench/gpu.py with the arguments given. A missing module costs its own figures only (recorded as skipped).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PY:-python3}
SITE=${ENTAILGEN_SITE:-/tmp/entailgen-site}
mkdir -p "$SITE/lib"
for wheel in "$ROOT"/.whl/*.whl; do  # one at a time: a wheel that does not fit this Python costs only itself
  [ -e "$wheel" ] || continue
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" "$wheel" \
    || echo "bench/gpu.sh: $(basename "$wheel") not installed; going on with what the node has" >&2
done
ln -sfn "$ROOT" "$SITE/entailgen"
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
export HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1  # no hub to wait for there; every line out as it is printed
if ! ldconfig -p 2>/dev/null | grep -q 'libcublas\.so\.12 '; then
  cublas=$("$PY" - <<'PYEOF'
import glob, os, sys
roots = [os.path.join(p, "nvidia") for p in sys.path if os.path.isdir(os.path.join(p, "nvidia"))]
roots += ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"]
found = sorted(f for r in roots for f in glob.glob(os.path.join(r, "**", "libcublas.so.1[0-9]*"), recursive=True))
print(found[-1] if found else "")
PYEOF
)
  if [ -n "$cublas" ]; then
    ln -sfn "$cublas" "$SITE/lib/libcublas.so.12"
    export LD_LIBRARY_PATH="$SITE/lib:$(dirname "$cublas")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    echo "bench/gpu.sh: libcublas.so.12 -> $cublas" >&2
  fi
fi
if ! PYTHONPATH="$PYTHONPATH" "$PY" -c "import transformers" 2>/dev/null; then  # the carried one clashes here
  echo "bench/gpu.sh: the carried transformers does not import; using the node's own" >&2
  rm -rf "$SITE"/transformers "$SITE"/transformers-*.dist-info
fi
"$PY" - <<'PYEOF' >&2
import importlib
for name in ("torch", "transformers", "accelerate", "tokenizers", "ctranslate2", "numpy", "pyarrow", "apache_beam", "spacy",
             "entailgen"):
    try:
        module = importlib.import_module(name)
        print(f"bench/gpu.sh: {name} {getattr(module, '__version__', '')} from {getattr(module, '__file__', '?')}")
    except Exception as exc:
        print(f"bench/gpu.sh: {name} missing ({type(exc).__name__}: {exc})")
PYEOF
exec "$PY" "$ROOT/bench/gpu.py" "$@"
