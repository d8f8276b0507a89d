import { HttpError, safeFetch, type SafeResponse } from '../../sdk/index.ts';
import { captionText, captionTrackUrl, videoId, watchPageUrl } from './video-captions.ts';

export interface UrlImportOptions {
  /** `host:port` pairs exempt from the private-address rule (explicit test configuration only). */
  allowedHosts: string[];
  /** Host names whose pages are video pages with caption tracks. */
  videoHosts: string[];
  signal?: AbortSignal;
}

export interface FetchedDocument { content: Uint8Array | string; filename: string; contentType?: string; isVideoTranscript: boolean }

const URL_MAX_BYTES = 10 * 1024 * 1024;
const URL_TIMEOUT_MS = 15_000;

/**
 * Fetches a user-supplied URL through the SDK's SSRF guard (http(s) only, resolved once and pinned,
 * non-public addresses and redirects refused, 10 MB, 15 s). A video page with a caption track yields
 * its transcript; any other page (or a video without captions) yields the page itself.
 */
export async function fetchUrlDocument(url: string, options: UrlImportOptions): Promise<FetchedDocument> {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const video = parsed && options.videoHosts.includes(parsed.hostname.toLowerCase());
  const pageUrl = video ? watchPageUrl(parsed) : parsed;
  const page = await get(pageUrl?.href ?? url, options);
  if (video) {
    const track = captionTrackUrl(page.text(), pageUrl!);
    const transcript = track && captionText((await get(track.href, options)).text());
    if (transcript) return { content: transcript, filename: `${videoId(pageUrl!)}-transcript.txt`, contentType: 'text/plain', isVideoTranscript: true };
  }
  const contentType = header(page, 'content-type');
  return { content: page.body, filename: filenameOf(page, parsed), ...(contentType && { contentType }), isVideoTranscript: false };
}

async function get(url: string, options: UrlImportOptions): Promise<SafeResponse> {
  const response = await safeFetch(url, {
    allowedHosts: options.allowedHosts, maxBytes: URL_MAX_BYTES, timeoutMs: URL_TIMEOUT_MS, signal: options.signal,
    headers: { 'user-agent': 'svc-knowledge/0.1 (+document import)', accept: 'text/html,application/xhtml+xml,text/*,application/pdf,*/*;q=0.8' },
  });
  if (response.status < 200 || response.status >= 300) {
    throw new HttpError(502, 'UPSTREAM_ERROR', `${new URL(url).host} answered ${response.status}`);
  }
  return response;
}

const header = (response: SafeResponse, name: string) => {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Content-Disposition's file name, else the last path segment, else the host name. */
function filenameOf(response: SafeResponse, url: URL | undefined): string {
  const disposition = header(response, 'content-disposition') ?? '';
  const declared = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1] ?? /filename="?([^";]+)"?/i.exec(disposition)?.[1];
  const segment = url?.pathname.split('/').filter(Boolean).pop();
  const raw = declared ?? segment ?? url?.hostname ?? 'document';
  try { return decodeURIComponent(raw); } catch { return raw; }
}
