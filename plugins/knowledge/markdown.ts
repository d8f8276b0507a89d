/**
 * Reduces Markdown to its readable text, so embeddings see words rather than markup: code is kept
 * without fences, headings/quotes/list markers/table pipes are dropped, links and images become their
 * text, emphasis markers and inline HTML tags are removed, backslash escapes are resolved. Line and
 * paragraph structure is kept.
 */
export function markdownToText(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      continue;
    }
    if (fence) { out.push(line); continue; }
    if (/^\s*\[[^\]]+\]:\s*\S+/.test(line)) continue; // link reference definition
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line) || /^\s{0,3}=+\s*$/.test(line)) continue; // rule or setext underline
    if (/^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$/.test(line)) continue; // table separator
    out.push(inline(block(line)));
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/** Strips block markers at the start of a line: headings, quotes, list bullets, task boxes, table pipes. */
function block(line: string): string {
  let text = line.replace(/^\s{0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$/, '$1');
  text = text.replace(/^(\s*>\s?)+/, '');
  text = text.replace(/^\s*(?:[-*+]|\d+[.)])\s+(\[[ xX]\]\s+)?/, '');
  if (/^\s*\|.*\|\s*$/.test(text)) text = text.trim().slice(1, -1).split('|').map((cell) => cell.trim()).join('  ');
  return text;
}

// Escaped characters are parked in the Private Use Area while the markup around them is resolved.
const PARKED = 0xe000;
const park = (char: string) => String.fromCharCode(PARKED + char.charCodeAt(0));
const unpark = (char: string) => String.fromCharCode(char.charCodeAt(0) - PARKED);

/** Resolves inline syntax: escapes, images, links, autolinks, code spans, emphasis, HTML tags. */
function inline(text: string): string {
  return text
    .replace(/\\([\\`*_{}[\]()#+\-.!>|~])/g, (_, char: string) => park(char))
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\](\([^)]*\)|\[[^\]]*\])/g, '$1')
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
    .replace(/`+([^`]+?)`+/g, '$1')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])/g, '$1$2')
    .replace(/(^|[^\w])_(?=\S)(.+?)(?<=\S)_(?!\w)/g, '$1$2')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '$1')
    .replace(/<\/?[A-Za-z][^>]*>/g, '')
    .replace(/[\ue000-\ue07f]/g, unpark);
}
