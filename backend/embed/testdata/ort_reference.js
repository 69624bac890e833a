// The reference for the Go ONNX Runtime path: the official onnxruntime-node
// binding runs the same graph on the same token batches with the same
// thread count, driven by the Go benchmarks (realshape_bench_test.go).
//
//   ORT_NODE=.../node_modules/onnxruntime-node node ort_reference.js MODEL BATCHES THREADS
//
// BATCHES is a JSON array of {rows, seq, input_ids, attention_mask,
// token_type_ids}. Once the session is loaded and has run every batch once,
// the script prints "ready" and a JSON line (the first values of batch 0's
// output, for the caller to compare); then each "run" line on stdin runs
// every batch once more and is answered with "done".
'use strict';
const fs = require('node:fs');
const readline = require('node:readline');
const ort = require(process.env.ORT_NODE);

function tensors(session, batch) {
  const feeds = {};
  for (const name of session.inputNames) {
    const data = BigInt64Array.from(batch[name], (x) => BigInt(x));
    feeds[name] = new ort.Tensor('int64', data, [batch.rows, batch.seq]);
  }
  return feeds;
}

async function main() {
  const [model, batchesFile, threads] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const batches = JSON.parse(fs.readFileSync(batchesFile, 'utf8')).map((b) => tensors(session, b));
  let first;
  const runAll = async () => {
    for (const [i, feeds] of batches.entries()) {
      const out = await session.run(feeds);
      if (i === 0) first = out[session.outputNames[0]].data;
    }
  };
  await runAll();
  const sample = Array.from(first.slice(0, 8));
  process.stdout.write('ready\n' + JSON.stringify({ binding: ort.env.versions.node, sample }) + '\n');
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line.trim() !== 'run') continue;
    await runAll();
    process.stdout.write('done\n');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
