#!/usr/bin/env bash
export VERICITE_SHARED=/work/shared OMP_NUM_THREADS=1
cd /work/main
V=.venv/bin/vericite
nice -n 15 $V -q bench conflicts --lang ru --limit 12 --nli nli-me5-small-ru-int8 --threshold 0.55 0.45 0.35 0.3 --threads 1 --json > /work/qout5/conf/ru.json 2> /work/qout5/conf/ru.err
nice -n 15 $V -q bench conflicts --lang en --limit 20 --threshold 0.7 0.5 0.4 0.3 --threads 1 --json > /work/qout5/conf/en.json 2> /work/qout5/conf/en.err
echo done > /work/qout5/conf/done
