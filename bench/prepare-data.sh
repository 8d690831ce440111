#!/usr/bin/env bash
# Converts the given benchmark data (../shared/bench) to memory-eval/v1 under bench/data/ (git-ignored):
# LoCoMo, MADial zh and en, and the two cross-language sets made from MADial's translations; plus
# three made-up Chinese daily-life logs for diagnosis (bench/synth-daily-zh.ts, bench/synth-life-zh.ts,
# bench/synth-assistant-zh.ts; not given sets).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsx bench/convert-locomo.ts
npx tsx bench/convert-madial.ts --lang zh
npx tsx bench/convert-madial.ts --lang en
npx tsx bench/convert-madial.ts --lang zh --question last
npx tsx bench/convert-madial.ts --lang en --question last
npx tsx bench/convert-cross-language.ts
npx tsx bench/pool-conversations.ts --input bench/data/locomo.json
npx tsx bench/pool-conversations.ts --input bench/data/locomo.json --log
npx tsx bench/convert-madial-noisy.ts
npx tsx bench/convert-madial-noisy.ts --copies 2
npx tsx bench/synth-daily-zh.ts
npx tsx bench/synth-daily-zh.ts --conversations 6 --stories 72 --seed 11 --name synth-daily-zh-big
npx tsx bench/synth-life-zh.ts
npx tsx bench/synth-assistant-zh.ts
