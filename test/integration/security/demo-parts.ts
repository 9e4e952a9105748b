import type { DemoHousehold } from '../../../src/demo/demo-household.js';

/** The demo household's parts the security tests use, or an error naming what is missing. */
export function demoParts(demo: DemoHousehold): {
  owner: DemoHousehold['users'][number];
  others: DemoHousehold['users'];
  client: DemoHousehold['clients'][number];
  frontDoor: string;
  gardenGate: string;
} {
  const [owner, ...others] = demo.users;
  const [client] = demo.clients;
  const [front, garden] = demo.locks;
  if (!owner || !client || !front || !garden) throw new Error('demo household incomplete');
  return { owner, others, client, frontDoor: front.id, gardenGate: garden.id };
}
