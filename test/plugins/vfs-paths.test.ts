// The one path validator of the VFS (also used by vfs-plugins): every traversal, encoding and look-alike
// spelling is refused with a reason, sane names of many scripts are accepted; project ids likewise.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertProjectId, pathProblem, validatePath } from '../../plugins/vfs/paths.ts';
import { HttpError } from '../../sdk/index.ts';

const refused: [string, string][] = [
  ['', 'empty'],
  ['/etc/passwd', 'absolute'],
  ['/', 'root'],
  ['a/../b', 'dot-dot segment'],
  ['..', 'dot-dot alone'],
  ['../x', 'leading dot-dot'],
  ['a/..', 'trailing dot-dot'],
  ['./a', 'dot segment'],
  ['a/./b', 'inner dot segment'],
  ['a//b', 'empty segment'],
  ['a/', 'trailing slash'],
  ['a\\b', 'backslash'],
  ['..\\..\\windows', 'backslash traversal'],
  ['C:\\x', 'drive letter'],
  ['a\0b', 'NUL'],
  ['a\nb', 'newline'],
  ['a\tb', 'tab'],
  ['a\u007fb', 'DEL'],
  ['a\u0085b', 'C1 control'],
  ['a\u200bb', 'zero-width space'],
  ['a\u202eb', 'right-to-left override'],
  ['%2e%2e/x', 'percent-encoded dots'],
  ['a%2fb', 'percent-encoded slash'],
  ['a%2Fb', 'percent-encoded slash, upper case'],
  ['a%5cb', 'percent-encoded backslash'],
  ['%252e%252e', 'double-encoded'],
  ['a%41', 'any percent-encoding'],
  ['100%', 'a bare percent sign'],
  ['a\u2215b', 'division slash'],
  ['a\u2044b', 'fraction slash'],
  ['a\u29f8b', 'big solidus'],
  ['a\uff0fb', 'fullwidth solidus'],
  ['a\uff3cb', 'fullwidth reverse solidus'],
  ['a\u2216b', 'set minus'],
  ['a\ufe68b', 'small reverse solidus'],
  ['\u2024\u2024/x', 'one dot leader'],
  ['\uff0e\uff0e/x', 'fullwidth full stops'],
  ['a\u3002b', 'ideographic full stop'],
  ['a\ufe52b', 'small full stop'],
  ['a\u2025b', 'two dot leader'],
  ['a\u0338b', 'combining long solidus overlay'],
  ['a\u20e5b', 'combining reverse solidus overlay'],
  ['a\ua78fb', 'sinological dot (a letter)'],
  ['a\ua4f8b', 'Lisu tone mark that looks like a full stop'],
  ['e\u0301', 'decomposed é (changes under NFC)'],
  ['\uff21', 'fullwidth A (changes under NFKC)'],
  ['\ufb01le', 'fi ligature (changes under NFKC)'],
  ['x\u00b2', 'superscript two (changes under NFKC)'],
  ['a:b', 'colon'],
  ['a*b', 'asterisk'],
  ['a?b', 'question mark'],
  ['a|b', 'pipe'],
  ['a<b>', 'angle brackets'],
  ['a"b', 'double quote'],
  ['a;b', 'semicolon'],
  ['a'.repeat(513), 'over 512 characters'],
  [Array(33).fill('d').join('/'), '33 segments'],
  ['é'.repeat(128), 'segment over 255 UTF-8 bytes'],
];

test('refused: traversal, encodings, controls, look-alikes, normalization, limits', () => {
  for (const [path, why] of refused) {
    assert.type(pathProblem(path), 'string', `${why}: ${JSON.stringify(path)}`);
  }
});

test('accepted: ordinary names in several scripts and the allowed punctuation', () => {
  const accepted = [
    'a', 'src/index.ts', 'README.md', '.gitignore', '.config/app.json', 'a..b', '...', 'my file (1).txt',
    "it's [draft] {v2}, final=yes!#$&+@~_-.md", 'Ünïcödé/naïve café.txt', 'ノート/メモ.md', '丿/丶', '文档/报告.docx',
    'русский/файл.txt', 'العربية/٠١٢.txt', 'हिन्दी.txt', 'ελληνικά', Array(32).fill('d').join('/'), 'a'.repeat(255), 'é'.repeat(127),
  ];
  for (const path of accepted) assert.is(pathProblem(path), undefined, path);
});

test('validatePath throws 400 INVALID_PATH with the reason, never echoing control characters raw', () => {
  assert.is(validatePath('a/b.txt'), 'a/b.txt');
  try {
    validatePath('a\u2215b');
    assert.unreachable();
  } catch (error) {
    assert.ok(HttpError.is(error));
    assert.equal([error.status, error.code], [400, 'INVALID_PATH']);
    assert.match(error.message, 'U+2215');
  }
  assert.match(pathProblem('a\0b')!, 'U+0000');
});

test('project ids: a letter or digit first, then up to 63 of A-Za-z0-9._-, never ".."', () => {
  for (const id of ['a', 'A1', 'my-project_1.0', '0', 'x'.repeat(64)]) assertProjectId(id);
  for (const id of ['', '.hidden', '-x', '_x', 'a..b', 'a/b', 'a b', 'x'.repeat(65), 'é', 'a%2f']) {
    try {
      assertProjectId(id);
      assert.unreachable(id);
    } catch (error) {
      assert.ok(HttpError.is(error), id);
      assert.equal([error.status, error.code], [400, 'INVALID_REQUEST'], id);
    }
  }
});

test.run();
