/** A row of the sessions table: the session aggregate (its extra_info_json dict included). */
import type { Pojo } from 'objection';
import type { JsonObject } from '../../protocol/index.js';
import type { SessionRecord } from '../records.js';
import { StoredModel, msOf } from './stored-model.js';

export class SessionModel extends StoredModel {
  static override tableName = 'sessions';
  static override idColumn = 'token_hash';
  static override jsonAttributes = ['extra_info_json'];
  static override timeColumns = ['created', 'expires'];
  static override intColumns = ['user_id'];

  declare token_hash: string;
  declare user_id: number;
  declare ip_address: string;
  declare user_agent: string;
  declare created: Date;
  declare expires: Date;
  declare extra_info_json: JsonObject | null;

  /** A row's record without a model instance (the hot reads; see StoredModel.parseRow). */
  static recordOf(row: Pojo): SessionRecord {
    return recordOfColumns(this.parseRow(row) as Columns);
  }

  /** The plain record the repos return (times as epoch ms). */
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
    created: msOf(c.created),
    expires: msOf(c.expires),
    extraInfo: c.extra_info_json ?? {},
  };
}
