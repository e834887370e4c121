// A real OAuth 2.0 / OpenID authorization server for the credential tests: oidc-provider (pinned in
// package.json), on 127.0.0.1, configured from the JSON file named by argv[2]:
//   {"port": 0, "clients": [...oidc-provider client metadata...], "ttl": {"ClientCredentials": 60, ...},
//    "rotate_refresh_tokens": true}
// Users sign in and consent on the provider's own development interaction pages (any login name is an
// account). Besides the provider's routes, one test-only route: GET /__stats says how many token
// requests each grant type made. Prints {"issuer": "http://127.0.0.1:<port>"} on stdout once listening.
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const Provider = require('oidc-provider').default || require('oidc-provider');

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const stats = {};

function ttl(name, fallback) {
  const seconds = (config.ttl || {})[name];
  return seconds === undefined ? fallback : seconds;
}

async function main() {
  const server = http.createServer();
  await new Promise((resolve) => server.listen(config.port || 0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: config.clients,
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async () => true },
      revocation: { enabled: true },
      devInteractions: { enabled: true },
    },
    scopes: config.scopes || ['openid', 'offline_access', 'read', 'write'],
    // Every grant of a client allowed refresh tokens gets one (no offline_access dance).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => config.rotate_refresh_tokens !== false,
    pkce: { required: () => true },
    ttl: {
      AccessToken: ttl('AccessToken', 3600),
      ClientCredentials: ttl('ClientCredentials', 3600),
      RefreshToken: ttl('RefreshToken', 86400),
      AuthorizationCode: 60,
      Grant: 86400,
      Interaction: 600,
      Session: 86400,
      IdToken: 3600,
    },
    // The consent step grants what the client asked for (the dev interaction pages' confirm button).
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    cookies: { keys: ['mcpgen-test-cookie-key'] },
  });
  provider.on('server_error', (_ctx, err) => process.stderr.write(`server_error: ${err && err.stack}\n`));
  provider.use(async (ctx, next) => {
    if (ctx.path === '/__stats') {
      ctx.body = stats;
      return;
    }
    await next();
    if (ctx.path === '/token' && ctx.method === 'POST') {
      const grant = (ctx.oidc && ctx.oidc.params && ctx.oidc.params.grant_type) || 'unknown';
      const key = `${grant} ${ctx.status}`;
      stats[key] = (stats[key] || 0) + 1;
    }
  });
  server.on('request', provider.callback());
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack}\n`);
  process.exit(1);
});
