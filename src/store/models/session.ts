/** A row of the sessions table: the session aggregate (its extra_info_json dict included). */
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

  toRecord(): SessionRecord {
    return {
      tokenHash: this.token_hash,
      userId: this.user_id,
      ipAddress: this.ip_address,
      userAgent: this.user_agent,
      created: msOf(this.created),
      expires: msOf(this.expires),
      extraInfo: this.extra_info_json ?? {},
    };
  }

  /** The columns of a record, as the model holds them. */
  static fromRecord(record: SessionRecord): Partial<SessionModel> {
    return {
      token_hash: record.tokenHash,
      user_id: record.userId,
      ip_address: record.ipAddress,
      user_agent: record.userAgent,
      created: new Date(record.created),
      expires: new Date(record.expires),
      extra_info_json: record.extraInfo,
    };
  }
}
