// Ours, not Handlebars: docker's actions use it for one variable ({{defaultContext}}); not worth an engine's load time.
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#x27;',
  '`': '&#x60;',
  '=': '&#x3D;'
};

export interface RenderOpts {
  /**
   * false: `{{name}}` is not HTML-escaped either. Handlebars escapes '=' and '&', which breaks the `?ref=…`
   * query form of a Git context (docker renders `{{defaultContext}}` escaped); default: escaped.
   */
  escape?: false;
}

/**
 * Renders the `{{defaultContext}}` template docker's actions accept in `context` and `build-contexts`
 * (they compile the value with Handlebars). `{{name}}` is HTML-escaped as Handlebars does, `{{{name}}}` is
 * not, an unknown name renders as '', and `\{{` keeps the braces literally.
 */
export function renderTemplate(
  template: string,
  vars: Record<string, string | undefined>,
  opts: RenderOpts = {}
): string {
  if (!template.includes('{{')) return template;
  return template.replace(
    /(\\)?\{\{(\{)?\s*([A-Za-z_][\w.-]*)\s*(\})?\}\}/g,
    (whole, escaped: string | undefined, triple: string | undefined, name: string, tripleEnd: string | undefined) => {
      if (escaped) return whole.slice(1);
      const value = vars[name] ?? '';
      if (triple && tripleEnd) return value;
      if (triple || tripleEnd) return whole;
      if (opts.escape === false) return value;
      return value.replace(/[&<>"'`=]/g, c => ESCAPES[c] as string);
    }
  );
}
