/**
 * The password of `user add` and `user reset-password`: typed at a prompt with no echo on a terminal
 * (twice, so a typo does not lock the user out), or the first line of stdin when it is piped. Never
 * from the command line (args.ts refuses it).
 */
import type { Readable, Writable } from 'node:stream';

type TtyIn = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

export type PasswordRead =
  { readonly ok: true; readonly password: string } | { readonly ok: false; readonly problem: string };

/** Everything piped on stdin, up to a bound (a password is short; a file named by mistake is not). */
async function readPiped(stdin: Readable): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > 64 * 1024) return null;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One line typed with the terminal in raw mode: nothing is echoed; backspace and Ctrl-C work. */
function promptHidden(stdin: TtyIn, stderr: Writable, prompt: string): Promise<string | null> {
  stderr.write(prompt);
  return new Promise((resolve) => {
    let typed = '';
    const finish = (value: string | null): void => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: Buffer | string): void => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n') return finish(typed);
        if (char === '\u0003' || char === '\u0004') return finish(null);
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.setRawMode?.(true);
    stdin.resume();
    stdin.on('data', onData);
  });
}

export async function readPassword(stdin: Readable, stderr: Writable, what: string): Promise<PasswordRead> {
  const tty = stdin as TtyIn;
  if (tty.isTTY === true) {
    const first = await promptHidden(tty, stderr, `${what}: `);
    if (first === null) return { ok: false, problem: 'cancelled' };
    const again = await promptHidden(tty, stderr, `${what} (again): `);
    if (again !== first) return { ok: false, problem: 'the two passwords differ' };
    return first === '' ? { ok: false, problem: 'the password is empty' } : { ok: true, password: first };
  }
  const piped = await readPiped(stdin);
  if (piped === null) return { ok: false, problem: 'stdin holds more than a password (over 64 KiB)' };
  // The first line, without its line ending: `echo`, `printf '%s\n'` and here-strings all add one.
  const password = piped.split(/\r?\n/)[0] ?? '';
  if (password === '') {
    return { ok: false, problem: 'no password: type it at the prompt of a terminal, or pipe it on stdin' };
  }
  return { ok: true, password };
}
