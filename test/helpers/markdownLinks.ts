// Reads the links and `npm run` commands out of Markdown, for the documentation's link check.

/** The text outside fenced code blocks and inline code, where Markdown links live. */
function proseOf(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Every link and image target outside code, as written: a page, a page with `#part`, `#part`, `https://…`. */
export function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of proseOf(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(match[1] as string);
  }
  return targets;
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const outsideFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const match of outsideFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = (match[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The script names of every `npm run <script>` in the text, code included. */
export function npmRunScripts(markdown: string): string[] {
  return [...markdown.matchAll(/\bnpm run(?:\s+--?[\w-]+)*\s+([a-z][\w:.-]*)/g)].map(
    (match) => match[1] as string,
  );
}
