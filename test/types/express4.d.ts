// Express 4 (the `express4` alias of the dev dependencies) for the adapter tests: the part they
// use (`express()`, `app.use`, `app.get`, `res.json`) is typed like Express 5's.
declare module 'express4' {
  import express from 'express';
  export default express;
}
