import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseEnv } from 'node:util';
import { parseEnvFile } from '../../src/config/envfile.js';

const parse = (lines: string[]) => parseEnvFile(lines.join('\n'), 'test.env');

describe('the env file (--envfile and .env)', () => {
  it('ignores a comment after a value: AUTHSVC_WORKERS=1   # comment', () => {
    assert.deepEqual(parse(['AUTHSVC_WORKERS=1   # one is enough here']).values, { AUTHSVC_WORKERS: '1' });
  });

  it('reads single, double and back quotes, keeping a # inside them', () => {
    const { values, problems } = parse([
      `A='single # kept'`,
      'B="double # kept"  # dropped',
      'C=`back # kept`',
      'D="  spaces kept  "',
    ]);
    assert.deepEqual(problems, []);
    assert.deepEqual(values, { A: 'single # kept', B: 'double # kept', C: 'back # kept', D: '  spaces kept  ' });
  });

  it('expands \\n in double quotes only, and reads a multi-line quoted value', () => {
    const { values, problems } = parse(['A="one\\ntwo"', "B='one\\ntwo'", 'C="first', 'second"', 'D=after']);
    assert.deepEqual(problems, []);
    assert.deepEqual(values, { A: 'one\ntwo', B: 'one\\ntwo', C: 'first\nsecond', D: 'after' });
  });

  it('takes comment lines, blank lines, export, spaces around = and empty values', () => {
    const { values, problems } = parse(['# a comment', '', '   ', 'export A=1', '\tB = spaced', 'C=', '  # indented']);
    assert.deepEqual(problems, []);
    assert.deepEqual(values, { A: '1', B: 'spaced', C: '' });
  });

  it('upper-cases names, and the last of a repeated name wins', () => {
    assert.deepEqual(parse(['authsvc_port=1', 'AUTHSVC_PORT=2']).values, { AUTHSVC_PORT: '2' });
  });

  it('names the lines that are not NAME=value with file and line number', () => {
    assert.deepEqual(parse(['A=1', 'JUST A LINE', 'B=2']).problems, ['test.env:2: not a NAME=value line']);
  });

  it('reads every value as node:util.parseEnv does', () => {
    const text = ['A=1 # c', 'B="x\\ny"', "C='a # b'", 'export D=d', 'E = e ', 'F="multi', 'line"', 'G="open'].join(
      '\n',
    );
    const expected = Object.fromEntries(Object.entries(parseEnv(text)).map(([k, v]) => [k.toUpperCase(), v]));
    assert.deepEqual(parseEnvFile(text, 'x').values, expected);
  });
});
