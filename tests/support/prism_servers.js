'use strict';
// Prism's own mock HTTP server (@stoplight/prism-http-server, the server `prism mock` runs), one per spec,
// all in this one Node process: starting the Prism CLI costs about a second of CPU per spec, loading one
// more document here costs milliseconds. tests/support/prism.py drives it.
//
//   node prism_servers.js <Prism's node_modules>
//   stdin:  one JSON line per spec:          {"document": "/abs/spec.json"}
//   stdout: one JSON line per spec, in order: {"address": "http://127.0.0.1:PORT"} or {"error": "..."}
// The config is `prism mock`'s (static examples, requests and security checked, --errors off), so each
// server answers exactly as `prism mock <document>` would: request violations in an `sl-violations`
// header, or a problem+json body when Prism refuses the request itself (401, 404, 405, 406, 415, 422).
// Every server binds 127.0.0.1 only; the process ends when stdin closes.

const path = require('path');
const readline = require('readline');

const modules = process.argv[2];
const need = name => require(path.join(modules, name));
const { getHttpOperationsFromSpec } = need('@stoplight/prism-http');
const { createServer } = need('@stoplight/prism-http-server');
const { createLogger } = need('@stoplight/prism-core');

const config = {
  validateRequest: true,
  validateResponse: true,
  checkSecurity: true,
  errors: false,
  upstreamProxy: undefined,
  mock: { dynamic: false, ignoreExamples: false, seed: null },
  isProxy: false,
};
const logger = createLogger('HTTP SERVER', { level: 'silent' });
const servers = [];

async function serve(document) {
  const operations = await getHttpOperationsFromSpec(document);
  if (operations.length === 0) throw new Error(`no operations found in ${document}`);
  const server = createServer(operations, { cors: false, config, components: { logger } });
  servers.push(server);
  return server.listen(0, '127.0.0.1');
}

// One spec at a time, answered in the order asked.
let queue = Promise.resolve();
readline.createInterface({ input: process.stdin }).on('line', line => {
  queue = queue.then(async () => {
    let reply;
    try {
      reply = { address: await serve(JSON.parse(line).document) };
    } catch (e) {
      reply = { error: String((e && e.message) || e) };
    }
    process.stdout.write(JSON.stringify(reply) + '\n');
  });
}).on('close', () => {
  queue.then(() => Promise.all(servers.map(s => s.close()))).finally(() => process.exit(0));
});
