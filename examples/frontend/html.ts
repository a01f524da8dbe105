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
        <a href="/password">Change password</a> <a href="/security">Security</a>
        <form method="post" action="/logout" class="inline">
          <input type="hidden" name="_csrf" value="${csrf}" /><button type="submit" id="logout">Log out</button>
        </form>
        <span id="whoami">${user.email} (${user.role})</span>`
    : html`<a href="/">Home</a> <a href="/signup">Sign up</a> <a href="/verify">Verify email</a>
        <a href="/login">Log in</a> <a href="/forgot">Forgot password</a>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>${title} — authsvc example</title>
        <link rel="stylesheet" href="/style.css" />
        <script src="/passkey.js" defer></script>
      </head>
      <body>
        <nav>${nav}</nav>
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

export function field(name: string, label: string, type = 'text', value = ''): Html {
  const autocomplete =
    type === 'password'
      ? name === 'password' || name === 'current_password'
        ? 'current-password'
        : 'new-password'
      : 'on';
  return html`<label
    >${label}
    <input name="${name}" id="${name}" type="${type}" value="${value}" autocomplete="${autocomplete}" required
  /></label>`;
}

export const STYLE = `
#qr svg { width: 12rem; height: 12rem; }
body { font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
nav { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; border-bottom: 1px solid #ccc; padding-bottom: .5rem; }
form.inline { display: inline; }
label { display: block; margin: .6rem 0; }
input, textarea { display: block; width: 100%; padding: .3rem; font: inherit; }
textarea { font-family: monospace; font-size: .8rem; }
.message { background: #eef; padding: .5rem; border-left: 4px solid #66a; }
.error { background: #fee; padding: .5rem; border-left: 4px solid #a66; }
.granted { border-left: 4px solid #6a6; padding-left: .5rem; }
.denied { border-left: 4px solid #a66; padding-left: .5rem; color: #666; }
`;
