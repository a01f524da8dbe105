/** Server-rendered HTML: every value is escaped where it is put into the page. */

export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** A fragment of HTML that is already safe to insert. */
export interface Html {
  readonly html: string;
}

type Part = string | number | Html | readonly Html[] | null | undefined | false;

const render = (part: Part): string => {
  if (part === null || part === undefined || part === false) return '';
  if (typeof part === 'string') return escapeHtml(part);
  if (typeof part === 'number') return String(part);
  if ('html' in part) return part.html;
  return part.map((p) => p.html).join('');
};

/** A tagged template that escapes each interpolated value unless it is already `Html`. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  return { html: strings.reduce((out, s, i) => out + s + (i < parts.length ? render(parts[i]) : ''), '') };
}

export interface PageUser {
  readonly email: string;
  readonly role: string;
}

export function page(title: string, user: PageUser | null, csrf: string, body: Html): string {
  const nav = user
    ? html`<a href="/">Home</a> <a href="/datasets">Datasets</a> <a href="/apikeys">API keys</a>
        <a href="/password">Password</a> <a href="/security">Security</a>
        <span class="spacer"></span>
        <span id="whoami">${user.email} (${user.role})</span>
        <form method="post" action="/logout" class="inline">
          <input type="hidden" name="_csrf" value="${csrf}" /><button type="submit" id="logout" class="link">
            Log out
          </button>
        </form>`
    : html`<a href="/">Home</a> <a href="/verify">Verify email</a> <span class="spacer"></span>
        <a href="/login">Log in</a> <a href="/signup" class="button">Sign up</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} — authsvc example</title>
        <link rel="stylesheet" href="/style.css" />
        <script src="/passkey.js" defer></script>
      </head>
      <body>
        <header>
          <a href="/" class="brand"><span class="logo" aria-hidden="true"></span>authsvc example</a>
          <nav>${nav}</nav>
        </header>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`.html;
}

/** A POST form carrying the session's CSRF token. */
export function form(action: string, csrf: string, id: string, fields: Html, button: string): Html {
  return html`<form method="post" action="${action}" id="${id}">
    <input type="hidden" name="_csrf" value="${csrf}" />
    ${fields}
    <button type="submit">${button}</button>
  </form>`;
}

/** The ceremonies a passkey form starts: passkey.js reads the purpose from the form's `data-passkey`. */
export type PasskeyPurpose = 'register' | 'login' | 'secondfactor' | 'stepup';

/**
 * A POST form that passkey.js submits once the browser has made or used a passkey: it asks the frontend for the
 * ceremony's options, then puts the credential's JSON into the hidden `response` item and submits the form.
 */
export function passkeyForm(
  action: string,
  csrf: string,
  id: string,
  purpose: PasskeyPurpose,
  fields: Html,
  button: string,
): Html {
  return html`<form method="post" action="${action}" id="${id}" data-passkey="${purpose}">
    <input type="hidden" name="_csrf" value="${csrf}" />
    ${fields}
    <input type="hidden" name="response" value="" />
    <button type="submit">${button}</button>
  </form>`;
}

/** A hidden item of a form. */
export function hidden(name: string, value: string): Html {
  return html`<input type="hidden" name="${name}" value="${value}" />`;
}

export interface FieldOptions {
  readonly type?: 'text' | 'email' | 'password';
  /** What was typed before an error (never a password). */
  readonly value?: string | undefined;
  /** The browser's hint: `email`, `new-password` (sign-up, reset, change), `current-password` (login)…; default off. */
  readonly autocomplete?: string;
  readonly inputmode?: 'numeric';
}

/** A labelled, required input. A password field never shows a value. */
export function field(name: string, label: string, options: FieldOptions = {}): Html {
  const type = options.type ?? 'text';
  const value = type === 'password' ? '' : (options.value ?? '');
  return html`<label
    >${label}
    <input
      name="${name}"
      id="${name}"
      type="${type}"
      value="${value}"
      autocomplete="${options.autocomplete ?? 'off'}"
      ${options.inputmode === undefined ? html`` : html`inputmode="${options.inputmode}"`}
      required
  /></label>`;
}
