#!/bin/bash
# after train.sh: prune the vocabulary, export int8, choose the threshold on TERRa val, report XNLI-ru test
set -e
cd /work/ru-build
RUN=${1:-run2}
V=/work/main/.venv/bin
while pgrep -f 'train-nli run2' >/dev/null; do sleep 30; done
test -f $RUN/config.json
nice -n 5 $V/vericite export prune-vocab $RUN $RUN-pruned --corpus /work/shared/data --corpus /work/main/examples --pairs 64
nice -n 5 $V/vericite export nli $RUN-pruned $RUN-int8 --quantize int8 --max-length 128
nice -n 5 $V/python -m vericite.export.threshold $RUN-int8 --choose-on terra_val --eval xnli_ru_test --threads 2 --sentence-window 1 --out $RUN-threshold-k1.json
echo POST-DONE
