// Caption tracks of video pages. A watch page embeds its player data as JSON that lists the caption
// tracks ("captionTracks": [{baseUrl, languageCode, kind}]); a track is timed-text XML, either the
// classic <transcript><text start dur>…</text> form or format 3 (<timedtext><body><p t d>…</p>).

interface CaptionTrack { baseUrl: string; languageCode?: string; kind?: string }

/** The page to fetch for a video URL: short links (youtu.be/ID) point at the watch page. */
export function watchPageUrl(url: URL): URL {
  if (url.hostname !== 'youtu.be') return url;
  return new URL(`https://www.youtube.com/watch?v=${encodeURIComponent(url.pathname.slice(1))}`);
}

/** The video id: the `v` query parameter, else the last path segment. */
export function videoId(url: URL): string {
  return url.searchParams.get('v') || url.pathname.split('/').filter(Boolean).pop() || url.hostname;
}

/** The best caption track of a watch page (English, human-made first), as an absolute URL. */
export function captionTrackUrl(html: string, pageUrl: URL): URL | undefined {
  const at = html.indexOf('"captionTracks"');
  const start = at === -1 ? -1 : html.indexOf('[', at);
  const json = start === -1 ? undefined : balancedArray(html, start);
  if (!json) return undefined;
  let tracks: CaptionTrack[];
  try { tracks = (JSON.parse(json) as CaptionTrack[]).filter((t) => typeof t?.baseUrl === 'string'); } catch { return undefined; }
  const english = (t: CaptionTrack) => (t.languageCode ?? '').toLowerCase().startsWith('en');
  const best = tracks.find((t) => english(t) && t.kind !== 'asr') ?? tracks.find(english) ?? tracks[0];
  if (!best) return undefined;
  try { return new URL(best.baseUrl, pageUrl); } catch { return undefined; }
}

/** The text of a timed-text document: its cues in order, tags removed, entities decoded. */
export function captionText(xml: string): string {
  const cues: string[] = [];
  for (const match of xml.matchAll(/<(text|p)\b[^>]*>([\s\S]*?)<\/\1>/g)) {
    // Cue text is often escaped twice (&amp;#39;), so entities are decoded on both sides of tag removal.
    const cue = decodeEntities(decodeEntities(match[2]!).replace(/<[^>]+>/g, '')).replace(/\s+/g, ' ').trim();
    if (cue) cues.push(cue);
  }
  return cues.join(' ');
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, code: string) => {
    if (code[0] !== '#') return NAMED[code.toLowerCase()] ?? entity;
    const point = code[1] === 'x' || code[1] === 'X' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
    return point > 0 && point <= 0x10ffff ? String.fromCodePoint(point) : entity;
  });
}

/** The JSON array starting at `start` (matching brackets outside strings), or undefined when unbalanced. */
function balancedArray(text: string, start: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') depth++;
    else if ((char === ']' || char === '}') && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}
