import { Type, type Static } from 'typebox';
import { Uuid } from './common.js';

/** Spec: LockCommand — the spec's five fields, then ours (docs/design.md §3 Commands). */
export const LockCommandSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Command ID' }),
    lock_id: Type.String({ format: 'uuid', description: 'Lock the command is for' }),
    type: Type.Union([Type.Literal('lock'), Type.Literal('unlock')], { description: 'lock or unlock' }),
    status: Type.Union([Type.Literal('created'), Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed')], {
      description: 'created (queued behind another command on the lock), processing (handed to the gateway), completed (the lock confirmed the bolt), failed',
    }),
    created_at: Type.String({ description: 'Creation time, ISO 8601 UTC with milliseconds and a trailing Z' }),
    completed_at: Type.Union([Type.String(), Type.Null()], {
      description: 'When the command reached completed or failed, ISO 8601 UTC with milliseconds; null while unfinished',
    }),
    failure_reason: Type.Union(
      [
        Type.Literal('jammed'),
        Type.Literal('timeout'),
        Type.Literal('delivery_failed'),
        Type.Literal('lock_offline'),
        Type.Literal('interrupted'),
        Type.Literal('superseded'),
        Type.Null(),
      ],
      { description: 'Why a failed command failed; null otherwise' },
    ),
    requested_by: Type.String({ format: 'uuid', description: 'User who requested the command' }),
  },
  { $id: 'LockCommand', additionalProperties: false },
);

/** The JSON body of a LockCommand. */
export type LockCommandBody = Static<typeof LockCommandSchema>;

/** Spec: POST /locks/{lock_id}/commands request body. */
export const CreateCommandBodySchema = Type.Object(
  { type: Type.Union([Type.Literal('lock'), Type.Literal('unlock')], { description: 'lock or unlock' }) },
  { additionalProperties: false },
);

export const LockParamsSchema = Type.Object({ lock_id: Uuid });
export const CommandParamsSchema = Type.Object({ lock_id: Uuid, command_id: Uuid });

/** Spec timestamps: ISO 8601 UTC with milliseconds and a trailing Z. */
const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * What the API needs of a command, in the service's words (the command engine hands its
 * commands over in this shape; the API does not know how they are stored).
 */
export interface CommandFields {
  id: string;
  lockId: string;
  type: LockCommandBody['type'];
  status: LockCommandBody['status'];
  createdAt: number;
  completedAt: number | null;
  failureReason: LockCommandBody['failure_reason'];
  requestedBy: string;
}

/** A command as the API shows it. */
export function toLockCommandBody(command: CommandFields): LockCommandBody {
  return {
    id: command.id,
    lock_id: command.lockId,
    type: command.type,
    status: command.status,
    created_at: iso(command.createdAt),
    completed_at: command.completedAt === null ? null : iso(command.completedAt),
    failure_reason: command.failureReason,
    requested_by: command.requestedBy,
  };
}
