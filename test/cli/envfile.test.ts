import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAuthsvc } from './spawn.js';
import { tempDir } from '../helpers/temp.js';

const dir = tempDir('envfile');

describe('authsvc --envfile', () => {
  it('reads comments after values and quoted values, refusing only what is wrong', async () => {
    const envfile = join(dir, 'commented.env');
    writeFileSync(
      envfile,
      [
        '# written by hand',
        'AUTHSVC_WORKERS=1   # one worker on a small machine',
        'AUTHSVC_PIISALT="a salt # with a hash sign"',
        "AUTHSVC_SERVERNAME='my authsvc'",
        'AUTHSVC_PORT=not-a-port # the one mistake',
        '',
      ].join('\n'),
    );
    const result = await runAuthsvc([`--envfile=${envfile}`, `--basedir=${dir}`], { cwd: dir });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /port .* must be/i);
    assert.doesNotMatch(result.stderr, /workers|piisalt|servername|envfile/i);
  });
});
