import { Type } from 'typebox';

/** docs/design.md §4e: one lock as one gateway device hears it. */
const GatewayLockSchema = Type.Object(
  {
    lock_id: Type.String({ format: 'uuid', description: 'Lock ID' }),
    rssi: Type.Union([Type.Integer(), Type.Null()], { description: 'Signal of the latest advertisement this gateway heard from the lock, dBm (good ≥ −70, fair ≥ −85, else poor); null when it never heard one (a link kept open)' }),
    seen_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When this gateway last heard the lock, ISO 8601 UTC; null when never' }),
    connected: Type.Boolean({ description: 'This gateway holds a Bluetooth link to the lock now' }),
  },
  { additionalProperties: false },
);

/** docs/design.md §4e: one gateway device — the host's adapter or an ESPHome Bluetooth proxy. */
export const GatewaySchema = Type.Object(
  {
    id: Type.String({ description: '`host` for the host\'s own Bluetooth adapter; a proxy\'s configured name' }),
    name: Type.String({ description: 'The gateway\'s name' }),
    kind: Type.Union([Type.Literal('host'), Type.Literal('esphome')], { description: 'host: the Homebridge host\'s adapter (BlueZ); esphome: an ESPHome Bluetooth proxy' }),
    state: Type.Union([Type.Literal('online'), Type.Literal('offline'), Type.Literal('unauthorized'), Type.Literal('unavailable')], {
      description: 'online; offline (cannot be reached, retried with backoff); unauthorized (the proxy refused our encryption key); unavailable (the host has no usable Bluetooth)',
    }),
    address: Type.Union([Type.String(), Type.Null()], { description: 'host:port of a proxy; null for the host\'s adapter' }),
    connections_free: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Connection slots free now (a proxy holds a few, usually 3); null where not counted or not known yet' }),
    connections_limit: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Connection slots in all; null where not counted or not known yet' }),
    locks: Type.Array(GatewayLockSchema, { description: 'The locks the caller owns or administers that this gateway hears or holds a link to' }),
  },
  { $id: 'Gateway', additionalProperties: false },
);

/** `GET /gateways`. */
export const GatewayListSchema = Type.Object({ gateways: Type.Array(Type.Ref('Gateway')) }, { additionalProperties: false });
