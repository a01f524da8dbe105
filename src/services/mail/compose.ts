/**
 * One source for both bodies of a mail: paragraphs of segments, rendered once as plain text (the
 * reference's layout) and once as the HTML alternative (every value escaped). A `code` segment is
 * the verification token: one unbroken line in both bodies, never wrapped (unlike the reference).
 */

export type Segment = string | { readonly link: string } | { readonly code: string };
export type Paragraph = readonly Segment[];

export function renderText(paragraphs: readonly Paragraph[]): string {
  const line = (s: Segment): string => (typeof s === 'string' ? s : 'link' in s ? s.link : s.code);
  return paragraphs.map((p) => p.map(line).join('')).join('\n\n') + '\n';
}

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

function segmentHtml(s: Segment): string {
  if (typeof s === 'string') return escapeHtml(s).replace(/\n/g, '<br>\n');
  if ('link' in s) return `<a href="${escapeHtml(s.link)}">${escapeHtml(s.link)}</a>`;
  // nowrap keeps the token on one line; a click-and-drag copies it whole.
  return `<code style="font-family:monospace;font-size:110%;white-space:nowrap">${escapeHtml(s.code)}</code>`;
}

export function renderHtml(subject: string, paragraphs: readonly Paragraph[]): string {
  const body = paragraphs.map((p) => `<p>${p.map(segmentHtml).join('')}</p>`).join('\n');
  return (
    '<!DOCTYPE html>\n<html><head><meta charset="utf-8">' +
    `<title>${escapeHtml(subject)}</title></head>\n<body>\n${body}\n</body></html>\n`
  );
}
