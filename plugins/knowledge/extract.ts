import { convert as htmlToText } from 'html-to-text';
import mammoth from 'mammoth';
import { extractText as pdfText, getDocumentProxy } from 'unpdf';
import { errors } from '../../sdk/index.ts';
import { markdownToText } from './markdown.ts';

export interface DocumentInput {
  /** Text for text types; base64 (string) or raw bytes for binary types. */
  content: string | Uint8Array;
  filename: string;
  /** MIME type; when absent (or octet-stream) it is inferred from the file name, else text/plain. */
  contentType?: string;
}

export interface ExtractedDocument { text: string; contentType: string; fileSize: number; warnings: string[] }

type Kind = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const KINDS: Record<string, Kind> = {
  'application/pdf': 'pdf', [DOCX]: 'docx', 'text/html': 'html', 'application/xhtml+xml': 'html',
  'text/markdown': 'markdown', 'text/x-markdown': 'markdown',
  'application/json': 'text', 'application/xml': 'text', 'application/yaml': 'text', 'application/x-yaml': 'text',
};
const BY_EXTENSION: Record<string, string> = {
  pdf: 'application/pdf', docx: DOCX, html: 'text/html', htm: 'text/html', xhtml: 'application/xhtml+xml',
  md: 'text/markdown', markdown: 'text/markdown', mdx: 'text/markdown', txt: 'text/plain', csv: 'text/csv',
  json: 'application/json', xml: 'application/xml', yaml: 'application/yaml', yml: 'application/yaml',
};
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** The MIME type without parameters, lower-cased; inferred from the file name when not given. */
export function resolveContentType(contentType: string | undefined, filename: string): { type: string; charset?: string; inferred: boolean } {
  const [base = '', ...params] = (contentType ?? '').split(';').map((p) => p.trim());
  const type = base.toLowerCase();
  const charset = params.map((p) => /^charset=("?)([^"]+)\1$/i.exec(p)?.[2]).find(Boolean);
  if (type && type !== 'application/octet-stream') return { type, charset, inferred: false };
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase();
  return { type: (extension && BY_EXTENSION[extension]) || 'text/plain', charset, inferred: true };
}

function kindOf(type: string): Kind | undefined {
  return KINDS[type] ?? (type.startsWith('text/') ? 'text' : undefined);
}

/**
 * Extracts the text of an uploaded or fetched document: PDF (unpdf), DOCX (mammoth), HTML
 * (html-to-text), Markdown (reduced to text) and any text type. Client mistakes (unsupported type,
 * bad base64, a corrupt file, no text at all) are 400 INVALID_REQUEST.
 */
export async function extractDocument(input: DocumentInput): Promise<ExtractedDocument> {
  const { type, charset, inferred } = resolveContentType(input.contentType, input.filename);
  const kind = kindOf(type);
  if (!kind) throw errors.badRequest(`Unsupported content type ${type}: use PDF, DOCX, HTML, Markdown or a text type`);
  const warnings: string[] = inferred && type !== 'text/plain' ? [`contentType ${type} was inferred from the file name`] : [];
  const binary = kind === 'pdf' || kind === 'docx';
  let bytes: Uint8Array | undefined;
  let text: string;
  if (typeof input.content === 'string') {
    if (binary) {
      if (!BASE64.test(input.content)) throw errors.badRequest(`content of a ${type} document must be base64`);
      bytes = Buffer.from(input.content, 'base64');
    }
    text = input.content;
  } else {
    bytes = input.content;
    text = binary ? '' : decode(bytes, charset);
  }
  const fileSize = bytes?.byteLength ?? Buffer.byteLength(text);
  try {
    if (kind === 'pdf') text = await fromPdf(bytes!, warnings);
    else if (kind === 'docx') text = await fromDocx(bytes!, warnings);
    else if (kind === 'html') text = htmlToText(text, HTML_OPTIONS);
    else if (kind === 'markdown') text = markdownToText(text);
  } catch (error) {
    throw errors.badRequest(`Cannot read ${input.filename} as ${type}: ${(error as Error).message}`);
  }
  text = text.replace(/\u0000/g, '').trim();
  if (!text) throw errors.badRequest(`No text could be extracted from ${input.filename}`);
  return { text, contentType: type, fileSize, warnings };
}

function decode(bytes: Uint8Array, charset = 'utf-8'): string {
  try { return new TextDecoder(charset).decode(bytes); } catch { return new TextDecoder().decode(bytes); }
}

async function fromPdf(bytes: Uint8Array, warnings: string[]): Promise<string> {
  // pdf.js takes ownership of (and detaches) the buffer it is given, so it gets a copy.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  const { totalPages, text } = await pdfText(pdf, { mergePages: false });
  const empty = text.filter((page) => !page.trim()).length;
  if (empty) warnings.push(`${empty} of ${totalPages} PDF pages have no extractable text (scanned images are not read)`);
  return text.map((page) => page.trim()).filter(Boolean).join('\n\n');
}

async function fromDocx(bytes: Uint8Array, warnings: string[]): Promise<string> {
  const { value, messages } = await mammoth.extractRawText({ buffer: Buffer.from(bytes) });
  for (const message of messages) warnings.push(`DOCX: ${message.message}`);
  return value;
}

const HTML_OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
};
