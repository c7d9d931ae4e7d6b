/**
 * The one HTML escape of both apps, for text put into element content or a double- or
 * single-quoted attribute value of a page or mail written by hand: the OpenID Provider's own pages,
 * the mails, the gateway's CSRF refusal and OAuth success pages. Numeric references for `& < > " '`
 * and the backtick (which old Internet Explorer took as an attribute quote), so the text reads the
 * same to an HTML parser, an XML parser and a mail client's sanitiser. Not for URLs in `href` on
 * its own: a caller checks a URL's scheme before it is written (only http(s) and relative ones are).
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`)
}
