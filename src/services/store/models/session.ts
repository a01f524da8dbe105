/** A row of the sessions table: the session aggregate (its extra_info_json dict included). */
import type { Pojo } from 'objection';
import type { JsonObject } from '../../../protocol/index.js';
import type { SessionRecord } from '../records.js';
import { StoredModel } from './stored-model.js';

export class SessionModel extends StoredModel {
  static override tableName = 'sessions';
  static override idColumn = 'token_hash';
  static override jsonColumns = ['extra_info_json'];
  static override timeColumns = ['created', 'expires'];
  static override intColumns = ['user_id'];

  declare token_hash: string;
  declare user_id: number;
  declare ip_address: string;
  declare user_agent: string;
  declare created: number;
  declare expires: number;
  declare extra_info_json: JsonObject | null;

  /** A row's record without a model instance (the hot reads; see StoredModel.parseRow). */
  static recordOf(row: Pojo): SessionRecord {
    return recordOfColumns(this.parseRow(row) as Columns);
  }

  /** The plain record the repos return. */
  toRecord(): SessionRecord {
    return recordOfColumns(this);
  }
}

/** The model's columns, as an instance or a parsed row holds them. */
type Columns = Omit<SessionModel, keyof StoredModel>;

function recordOfColumns(c: Columns): SessionRecord {
  return {
    tokenHash: c.token_hash,
    userId: c.user_id,
    ipAddress: c.ip_address,
    userAgent: c.user_agent,
    created: c.created,
    expires: c.expires,
    extraInfo: c.extra_info_json ?? {},
  };
}
