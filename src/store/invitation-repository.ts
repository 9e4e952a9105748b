import type { SqliteDatabase } from './database.js';

/** An invitation to sign up; only the SHA-256 hash of its link token is stored. */
export interface InvitationRecord {
  id: string;
  tokenHash: string;
  /** The invited user (password NULL until they sign up). */
  userId: string;
  invitedBy: string | null;
  expiresAt: number;
  acceptedAt: number | null;
  createdAt: number;
  /** When its last pending eKey was revoked or purged: a closed invitation creates nothing. */
  closedAt: number | null;
}

interface InvitationRow {
  id: string;
  token_hash: string;
  user_id: string;
  invited_by: string | null;
  expires_at: number;
  accepted_at: number | null;
  created_at: number;
  closed_at: number | null;
}

const toRecord = (row: InvitationRow): InvitationRecord => ({
  id: row.id,
  tokenHash: row.token_hash,
  userId: row.user_id,
  invitedBy: row.invited_by,
  expiresAt: row.expires_at,
  acceptedAt: row.accepted_at,
  createdAt: row.created_at,
  closedAt: row.closed_at,
});

/** The invitations table. Every lookup is by token hash: the store never sees a link token. */
export class InvitationRepository {
  private readonly byTokenHash;
  private readonly insertStatement;
  private readonly acceptAllStatement;
  private readonly closeAllStatement;

  constructor(db: SqliteDatabase) {
    this.byTokenHash = db.prepare<[string], InvitationRow>('SELECT * FROM invitations WHERE token_hash = ?');
    this.insertStatement = db.prepare(
      `INSERT INTO invitations (id, token_hash, user_id, invited_by, expires_at, accepted_at, created_at, closed_at)
       VALUES (@id, @token_hash, @user_id, @invited_by, @expires_at, @accepted_at, @created_at, @closed_at)`,
    );
    this.acceptAllStatement = db.prepare<[number, string]>(
      'UPDATE invitations SET accepted_at = ? WHERE user_id = ? AND accepted_at IS NULL AND closed_at IS NULL',
    );
    this.closeAllStatement = db.prepare<[number, string]>(
      'UPDATE invitations SET closed_at = ? WHERE user_id = ? AND accepted_at IS NULL AND closed_at IS NULL',
    );
  }

  findByTokenHash(tokenHash: string): InvitationRecord | undefined {
    const row = this.byTokenHash.get(tokenHash);
    return row ? toRecord(row) : undefined;
  }

  insert(invitation: InvitationRecord): void {
    this.insertStatement.run({
      id: invitation.id,
      token_hash: invitation.tokenHash,
      user_id: invitation.userId,
      invited_by: invitation.invitedBy,
      expires_at: invitation.expiresAt,
      accepted_at: invitation.acceptedAt,
      created_at: invitation.createdAt,
      closed_at: invitation.closedAt,
    });
  }

  /** Marks every open invitation of a user accepted (one sign-up answers them all). */
  acceptAllFor(userId: string, at: number): number {
    return this.acceptAllStatement.run(at, userId).changes;
  }

  /** Closes every open invitation of a user (their last pending eKey was withdrawn). */
  closeAllFor(userId: string, at: number): number {
    return this.closeAllStatement.run(at, userId).changes;
  }
}
