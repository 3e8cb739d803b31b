"""Generic code (kernel/, lib/, include/kernel/, include/lib/, samples/) reaches the machine only through
the arch interface in arch/x86_64/include/arch/: it names no field of struct pt_regs and
declares no symbol that an assembly file defines. The field list is read from regs.h and
the symbols from the .asm files, so the check follows them when they change."""

import re
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GENERIC_DIRS = ("kernel", "lib", "include/kernel", "include/lib", "samples")
REGS_H = REPO / "arch/x86_64/include/arch/regs.h"
ASM_DIRS = ("arch", "boot")
# pt_regs fields whose names other structs use too: irq_vectors' records have a vector.
SHARED_FIELD_NAMES = frozenset({"vector"})
# Linux's generic interfaces that arch implements in assembly (nofault.asm), and
# strnlen_kernel_nofault, their kin for measuring a string: generic headers declare them
# as Linux's do.
GENERIC_INTERFACES_IN_ASM = frozenset({"copy_from_kernel_nofault", "strncpy_from_kernel_nofault",
                                       "strnlen_kernel_nofault"})

_COMMENT_OR_LITERAL = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)


def strip_literals(text: str, keep_comments: bool) -> str:
    """text without string and character literals (and comments unless kept), lines kept."""

    def blank(m: re.Match[str]) -> str:
        s = m.group(0)
        if keep_comments and s.startswith("/"):
            return s
        return re.sub(r"[^\n]", " ", s)

    return _COMMENT_OR_LITERAL.sub(blank, text)


def pt_regs_fields(regs_h: str) -> list[str]:
    body = re.search(r"struct pt_regs\s*\{(.*?)\};", regs_h, re.DOTALL)
    if body is None:
        raise ValueError("no struct pt_regs in regs.h")
    text = strip_literals(body.group(1), keep_comments=False)
    return re.findall(r"\b([A-Za-z_]\w*)\s*[,;]", text)


def asm_globals(asm_texts: list[str]) -> set[str]:
    names: set[str] = set()
    for text in asm_texts:
        for m in re.finditer(r"^\s*global\s+([A-Za-z_.$][\w.$]*)", text, re.MULTILINE):
            names.add(m.group(1))
    return names


def field_uses(text: str, fields: list[str]) -> list[tuple[int, str]]:
    """(line, field) for every `->field`, `.field` or offsetof(struct pt_regs, field) outside
    literals (comments count)."""
    names = [f for f in fields if f not in SHARED_FIELD_NAMES]
    if not names:
        return []
    alt = "|".join(map(re.escape, names))
    pattern = re.compile(r"(?:->|\.|offsetof\s*\(\s*struct\s+pt_regs\s*,)\s*(" + alt + r")\b")
    clean = strip_literals(text, keep_comments=True)
    return [(clean.count("\n", 0, m.start()) + 1, m.group(1)) for m in pattern.finditer(clean)]


def asm_declarations(text: str, symbols: set[str]) -> list[tuple[int, str]]:
    """(line, symbol) for every declaration of an assembly symbol: `extern ... sym[];`,
    `type sym(...);` and the like."""
    clean = strip_literals(text, keep_comments=False)
    named = set(re.findall(r"[A-Za-z_.$][\w.$]*", clean)) & (symbols - GENERIC_INTERFACES_IN_ASM)
    found = []
    for sym in sorted(named):
        decl = re.compile(r"(?:^|[;{}])\s*(?:extern\s+)?[A-Za-z_][\w\s*]*?\b" + re.escape(sym) +
                          r"\s*(?:\[[^\]]*\]|\([^;{}]*\))\s*;", re.MULTILINE)
        for m in decl.finditer(clean):
            at = clean.index(sym, m.start())
            found.append((clean.count("\n", 0, at) + 1, sym))
    return found


def generic_sources() -> list[Path]:
    files: list[Path] = []
    for d in GENERIC_DIRS:
        files += sorted(p for p in (REPO / d).rglob("*") if p.suffix in (".c", ".h"))
    return files


class ArchSeamCheckerTest(unittest.TestCase):
    """The checks themselves, on small fixtures: each must find what it is for."""

    FIELDS = ["r15", "rdi", "vector", "rip", "cs"]

    def test_finds_field_uses_outside_literals(self) -> None:
        text = ('x = regs->rdi;\n'
                'struct pt_regs r = {.rip = 1};\n'
                'printf("regs->rip");\n'
                'y = rec->vector; z = a.csv;\n'
                '/* regs->r15 */\n'
                'n = offsetof(struct pt_regs, cs) / 8;\n')
        self.assertEqual(field_uses(text, self.FIELDS),
                         [(1, "rdi"), (2, "rip"), (5, "r15"), (6, "cs")])

    def test_finds_asm_declarations(self) -> None:
        text = ('extern const char isr_common[];\n'
                'void arch_thread_start(void);\n'
                'if (x == (unsigned long)isr_common) f();\n'
                'long copy_from_kernel_nofault(void *dst, const void *src,\n'
                '                              size_t len);\n')
        symbols = {"isr_common", "arch_thread_start", "copy_from_kernel_nofault"}
        self.assertEqual(asm_declarations(text, symbols),
                         [(2, "arch_thread_start"), (1, "isr_common")])

    def test_reads_fields_and_globals(self) -> None:
        self.assertEqual(pt_regs_fields("struct pt_regs {\n uint64_t r15, r14; /* x */\n"
                                        " uint64_t rip;\n};"), ["r15", "r14", "rip"])
        self.assertEqual(asm_globals(["global isr_common:function\n  global foo\n; global no"]),
                         {"isr_common", "foo"})


class GenericCodeNamesNoX86Test(unittest.TestCase):
    """The tree: generic code uses <arch/regs.h>'s helpers and arch headers' declarations."""

    def test_no_pt_regs_field_names(self) -> None:
        fields = pt_regs_fields(REGS_H.read_text())
        self.assertIn("rip", fields)  # the parse found the struct
        bad = [f"{p.relative_to(REPO)}:{line}: {field}" for p in generic_sources()
               for line, field in field_uses(p.read_text(), fields)]
        self.assertEqual(bad, [], "generic code names pt_regs fields; use <arch/regs.h>")

    def test_no_asm_symbols_declared(self) -> None:
        symbols = asm_globals([p.read_text() for d in ASM_DIRS
                               for p in sorted((REPO / d).rglob("*.asm"))])
        self.assertIn("isr_common", symbols)  # the scan found the entry code
        bad = [f"{p.relative_to(REPO)}:{line}: {sym}" for p in generic_sources()
               for line, sym in asm_declarations(p.read_text(), symbols)]
        self.assertEqual(bad, [], "generic code declares assembly symbols; declare them in arch/")


if __name__ == "__main__":
    unittest.main()
