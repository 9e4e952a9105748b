import type { BenchScenario } from '../scenario.js';

/** Authenticated `GET /me`: the bearer-token check plus the smallest protected read. */
export const getMe: BenchScenario = {
  name: 'get-me',
  description: 'GET /me with a bearer token obtained through the authorization-code flow',
  connections: 50,
  targetRatio: 0.6,
  async prepare(target) {
    const token = await target.login(0);
    const owner = target.demo.users[0];
    return {
      requests: [{ method: 'GET', path: '/me', headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }],
      baselineBody: JSON.stringify({ id: owner?.id ?? '', name: owner?.name ?? '' }),
    };
  },
};
