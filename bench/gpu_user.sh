#!/usr/bin/env bash
# The GPU check of issue 16, as one run on a lent GPU machine (its own CUDA JAX, no
# network): VGG19's forward pass at batch 100 with the convolution kernel's reverse folded
# into the convolution ("fold") or materialised behind a barrier ("barrier"), at IEEE
# Float32 and at TensorFloat-32, beside plain JAX in the same process (bench/gpu.py); the
# same network as a user writes it, through `zyla run` (bench/user/vgg_forward.jl); the
# forward+backward pass; then the tests that compile convolutions and loop nests.
#   Every step appends to $OUT/all.log as it ends, so a time limit still returns what ran.
#   Wheels the machine lacks (lark, prompt_toolkit, wcwidth) are expected in .whl/.
#   SIDE, BATCH, REPS, TESTS override the sizes (a CPU dry run: SIDE=64 BATCH=2); STEPS
#   picks among "forward user grad tests", GRAD lists precision:flip pairs for the gradient.
set -u
out=${OUT:-gpu_out}; mkdir -p "$out"
log="$out/all.log"
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
fi
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
export ZYLA_XLA_CACHE=off  # every compile is measured cold
py=${PY:-python3}
side=${SIDE:-224}; batch=${BATCH:-100}; reps=${REPS:-8}
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
  $py -c "import jax, numpy; print('jax', jax.__version__, 'numpy', numpy.__version__, jax.devices())"
} >>"$log" 2>&1

step() {  # name, time limit in seconds, then the command (env assignments allowed)
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  echo "== $name" >>"$log"
  env "$@" >/tmp/step.log 2>&1 &
  local pid=$!
  ( sleep "$limit"; kill -9 $pid 2>/dev/null ) & local guard=$!
  wait $pid; local rc=$?
  kill $guard 2>/dev/null
  grep -v '^| conv\|^| maxpool\|^|---\|^| op \|^$' /tmp/step.log | tail -25 >>"$log"
  echo "-- $name: exit $rc after $((SECONDS - t0)) s" >>"$log"
}
hlo_counts() {  # the cuDNN calls and fusions in an optimised module
  local f=$1
  echo "$f: $(grep -c ' fusion(' "$f") fusions" >>"$log"
  grep -o 'custom_call_target="[^"]*"' "$f" | sort | uniq -c >>"$log"
}
vgg="bench/gpu.py --batch $batch --side $side --reps $reps"
want() { [[ " ${STEPS:-forward user grad tests} " == *" $1 "* ]]; }
if want forward; then
  for prec in default highest; do
    for flip in fold barrier; do
      rm -rf /tmp/hlo
      step "forward $prec $flip" 120 ZYLA_MATMUL_PRECISION=$prec ZYLA_CONV_FLIP=$flip \
        $py $vgg --forward-only --dump-hlo /tmp/hlo
      for f in /tmp/hlo/*.txt; do [ -f "$f" ] && hlo_counts "$f"; done
    done
  done
fi
if want user; then
  for prec in highest default; do
    step "user path (zyla run vgg_forward.jl) $prec" 120 ZYLA_MATMUL_PRECISION=$prec \
      $py -m lang.door.cli run bench/user/vgg_forward.jl "$side" "$batch" "$reps"
  done
fi
if want grad; then  # precision:flip pairs
  for pf in ${GRAD:-highest:auto}; do
    step "forward+backward ${pf%%:*} ${pf##*:}" 200 ZYLA_MATMUL_PRECISION=${pf%%:*} \
      ZYLA_CONV_FLIP=${pf##*:} $py $vgg
  done
fi
if want tests; then
  step "tests" 150 $py -m pytest -q -p no:cacheprovider -n 8 -x \
    ${TESTS:-tests/test_nests.py tests/test_flux.py tests/test_costmodel.py}
  cp /tmp/step.log "$out/tests.log"
fi
echo "== done after $SECONDS s" >>"$log"
