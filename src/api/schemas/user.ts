import { Type } from 'typebox';

/** Spec: User object. */
export const UserSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'User ID' }),
    name: Type.String({ description: "The user's full name" }),
  },
  { $id: 'User', additionalProperties: false },
);
