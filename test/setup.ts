import fc from 'fast-check';

// Property tests explore a fixed sample by default, so that CI is deterministic; set FC_SEED to
// explore others (a failure prints the seed and the shrunk counterexample).
fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_261_122) });
