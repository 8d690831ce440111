"""Prints the characters the bundled CJK font keeps (see src/app/fonts/README.md)."""

import pathlib

chars = set()
# GB 2312 level 1: rows 0xB0-0xD7, the 3,755 most common characters.
for high in range(0xB0, 0xD8):
    for low in range(0xA1, 0xFF):
        try:
            chars.add(bytes([high, low]).decode("gb2312"))
        except UnicodeDecodeError:
            pass
# CJK and full-width punctuation, curly quotes, the ellipsis and the middle dot.
for code in [*range(0x3000, 0x3040), *range(0xFF00, 0xFF65), 0x00B7, 0x2014, 0x2018, 0x2019, 0x201C, 0x201D, 0x2026]:
    chars.add(chr(code))
# Every character of the Chinese UI, rare ones included.
messages = pathlib.Path(__file__).resolve().parent.parent / "src" / "i18n" / "messages" / "zh.ts"
chars |= {c for c in messages.read_text(encoding="utf-8") if ord(c) >= 0x2E80}
print("".join(sorted(chars)))
