/*
 * The example frontend's one script, served as /passkey.js: the browser's half of a passkey ceremony, for each form
 * marked data-passkey="register|login|secondfactor|stepup" (html.ts passkeyForm). On submit it asks the frontend for
 * the ceremony's options (POST /passkey/options with the form's items, its CSRF token among them; the frontend calls
 * user-passkey-options with the session it holds, whose token stays in its HttpOnly cookie), hands them to
 * navigator.credentials.create() or .get(), puts the credential's JSON into the form's hidden `response` item and
 * submits the form: the frontend has authsvc verify it and answers with a page, as for any other form.
 * Plain JavaScript for today's browsers (PublicKeyCredential's JSON methods), no bundler, no library.
 */
/* global document, navigator, fetch, location, FormData, URLSearchParams, HTMLFormElement, PublicKeyCredential */
'use strict';

/** Shows a problem above the form, as the frontend's pages show theirs (class "error"). */
function showProblem(form, message) {
  const shown = document.getElementById('passkey-problem') ?? document.createElement('p');
  shown.id = 'passkey-problem';
  shown.className = 'error';
  shown.textContent = message;
  form.before(shown);
}

/** The frontend's answer to the options request: { options }, { redirect } or { error }. */
async function optionsFor(form) {
  const body = new URLSearchParams(new FormData(form));
  body.set('purpose', form.dataset.passkey);
  const reply = await fetch('/passkey/options', { method: 'POST', body, credentials: 'same-origin' });
  // Anything but JSON is one of the frontend's pages, such as "this form has expired".
  if (!(reply.headers.get('content-type') ?? '').startsWith('application/json'))
    return { error: 'This page has expired. Please reload it and try again.' };
  return reply.json();
}

async function ceremony(form) {
  const answer = await optionsFor(form);
  if (typeof answer.redirect === 'string') return location.assign(answer.redirect);
  if (answer.options === undefined) return showProblem(form, answer.error ?? 'Sorry, something went wrong.');
  const credential =
    form.dataset.passkey === 'register'
      ? await navigator.credentials.create({
          publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(answer.options),
        })
      : await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(answer.options) });
  form.elements.namedItem('response').value = JSON.stringify(credential.toJSON());
  // submit() fires no submit event: this listener does not run again.
  form.submit();
}

document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || form.dataset.passkey === undefined) return;
  event.preventDefault();
  if (typeof PublicKeyCredential === 'undefined' || !('parseCreationOptionsFromJSON' in PublicKeyCredential)) {
    showProblem(form, 'This browser cannot use passkeys here.');
    return;
  }
  const button = form.querySelector('button');
  button.disabled = true;
  ceremony(form)
    .catch((error) =>
      showProblem(
        form,
        // What the browser says when the user cancels, or no passkey answered in time.
        error.name === 'NotAllowedError' ? 'No passkey was used. Please try again.' : String(error.message),
      ),
    )
    .finally(() => {
      button.disabled = false;
    });
});
