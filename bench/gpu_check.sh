#!/usr/bin/env bash
# The GPU check of issue 5, as one run on a lent GPU machine (CUDA JAX installed there, no
# network): VGG19 forward batch 100 beside XLA.jl's 0.23 s, then the test suite and the
# acceptance programs on the GPU backend. Logs go to $OUT (or ./gpu_out).
#   Wheels of the pure-Python dependencies the machine lacks are expected in .whl/ and the
#   acceptance programs in .acc/acceptance/ (the device does not see ../shared).
set -u
out=${OUT:-gpu_out}; mkdir -p "$out"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
# several test processes share one GPU: no up-front grab of 75% of its memory each
export XLA_PYTHON_CLIENT_PREALLOCATE=false
# the convolution cost model calibrates every new shape on this device; bound it
export ZYLA_COSTMODEL_BUDGET=${ZYLA_COSTMODEL_BUDGET:-40}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$out/gpu.txt" 2>&1
python3 -c "import jax, numpy; print('jax', jax.__version__, 'numpy', numpy.__version__, \
jax.devices())" >>"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"

export ZYLA_XLA_CACHE=off  # every compile is measured cold
reps=${REPS:-8}
vgg() {  # name, then env assignments for bench/gpu.py, then its extra arguments
  local name=$1; shift
  echo "== VGG19 batch 100: $name"
  env "$@" >"$out/vgg_$name.log" 2>&1
  echo "exit $?"; grep -v '^| conv\|^| maxpool\|^|---\|^| op ' "$out/vgg_$name.log" | tail -14
}
# Zyla's defaults: Float32 products in IEEE Float32; on a GPU, XLA's own convolutions
vgg default timeout "${VGG_S:-200}" python3 bench/gpu.py --reps "$reps"
# the convolution cost model calibrating on this device (off by default on a GPU)
[ -z "${CALIBRATE:-}" ] || vgg calibrated ZYLA_COSTMODEL=on timeout 200 \
  python3 bench/gpu.py --reps "$reps"
# TensorFloat-32 allowed (plain JAX's default on a GPU); both optimised modules kept
vgg tf32 ZYLA_MATMUL_PRECISION=default timeout 120 \
  python3 bench/gpu.py --reps "$reps" --forward-only --dump-hlo "$out/hlo"
echo "== loop compile, 10 vs 100000 iterations"
timeout 60 python3 bench/gpu.py --loop-compile 2>&1 | tail -5

echo "== acceptance (background) and pytest"
printf '#!/bin/sh\nexec python3 -m lang.door.cli "$@"\n' >/tmp/zyla && chmod +x /tmp/zyla
[ -n "${NO_ACC:-}" ] || (timeout "${ACC_S:-200}" bash .acc/acceptance/run --xfail tests/acceptance_xfail.txt /tmp/zyla \
  >"$out/acceptance.log" 2>&1; echo "acceptance exit $?" >>"$out/acceptance.log") &
timeout "${TEST_S:-240}" python3 -m pytest -v -p no:cacheprovider -n "${WORKERS:-10}" ${TESTS:-tests} \
  -rf --timeout 200 >"$out/pytest.log" 2>&1
echo "pytest exit $?"
wait
grep -c ' PASSED ' "$out/pytest.log"; grep ' FAILED \| ERROR ' "$out/pytest.log" | head -40
tail -3 "$out/pytest.log"; tail -4 "$out/acceptance.log"
