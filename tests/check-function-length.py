#!/usr/bin/env python3
"""No function in gst/ longer than 80 lines, apart from the blocks of property rows.

A function's length is the number of lines of its body, from the line of its opening brace to the
line of its closing brace. A class_init function (its name ends in `_class_init`) and a class's
`install_properties` (the rows class_init adds to its PropertyTable, kept beside the class they
belong to) may be longer: they are mostly documented property rows, one `add` after another.

The files are C and C++ (gst/**/*.cpp, *.h, *.c) read with a brace counter: comments, strings and
character literals are blanked first, and preprocessor lines dropped. The braces of a namespace, a
class, a struct, a union, an enum or an `extern "C"` block are transparent, so member functions
defined inside a class count as functions; braces that open anything else outside a function (an
initialiser, a table) are not functions, and every brace inside a function belongs to it.

Usage: check-function-length.py <source root>. Prints each function over the limit, as
`name file:line lines`, and exits 1 when there is one."""
import os
import re
import sys

LIMIT = 80
# Property blocks: class_init functions, and the rows a class adds to its PropertyTable.
ALLOWED_SUFFIXES = ("_class_init", "::install_properties")

# What may stand between a function's parameter list and its body.
QUALIFIERS = {"const", "noexcept", "override", "final", "mutable", "volatile", "try", "&", "&&"}
SCOPE_KEYWORDS = re.compile(r"\b(namespace|class|struct|union|enum)\b")
ACCESS_LABEL = re.compile(r"\b(public|protected|private)\s*:(?!:)")


def blank_code(text):
    """The text with comments, strings, character literals and preprocessor lines blanked to
    spaces: newlines stay, so line numbers do not move; quotes stay, so `extern "C"` reads as
    `extern ""`."""
    out = []
    i = 0
    n = len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":
            # A preprocessor line, with its continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        line_start = False
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum()
                                                                      or text[i - 1] == "_")):
            match = re.match(r'R"([^()\\\s]{0,16})\(', text[i:])
            if not match:
                out.append(c)
                i += 1
                continue
            close = ")" + match.group(1) + '"'
            end = text.find(close, i + match.end())
            end = n if end < 0 else end + len(close)
            out.append('"' + re.sub(r"[^\n]", " ", text[i + 1:end - 1]) + '"')
            i = end
        elif c in "\"'":
            # A string or character literal (a digit separator like 1'000 is a quote after a
            # digit: left alone).
            if c == "'" and i > 0 and text[i - 1].isalnum():
                out.append(c)
                i += 1
                continue
            out.append(c)
            i += 1
            while i < n and text[i] != c and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n:
                    out.append("  " if text[i + 1] != "\n" else " \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            if i < n and text[i] == c:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def top_level_colon(header):
    """The index of the colon that opens a constructor's initialiser list: the first single colon
    outside parentheses after the parameter list's closing parenthesis, or -1."""
    depth = 0
    seen_parameters = False
    i = 0
    while i < len(header):
        c = header[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                seen_parameters = True
        elif c == ":" and depth == 0:
            if header.startswith("::", i):
                i += 2
                continue
            if seen_parameters:
                return i
        i += 1
    return -1


def has_assignment(header):
    """Whether the header holds an `=` outside parentheses and brackets: an initialiser
    (`static const Row table[] = {`), not a function."""
    depth = 0
    for i, c in enumerate(header):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "=" and depth == 0:
            before = header[:i].rstrip()
            after = header[i + 1:i + 2]
            if after == "=" or (before and before[-1] in "=!<>+-*/%&|^"):
                continue
            if re.search(r"\boperator\s*\S*$", before):
                continue
            return True
    return False


def function_name(declarator):
    """The name of the function a declarator (the header before any initialiser list) defines,
    or None when it is not a function: it must end, after its qualifiers, with a parameter
    list."""
    text = declarator.rstrip()
    while True:
        stripped = False
        for word in sorted(QUALIFIERS, key=len, reverse=True):
            if text.endswith(word) and (not word[0].isalpha()
                                        or not (text[:-len(word)][-1:].isalnum()
                                                or text[:-len(word)][-1:] == "_")):
                text = text[:-len(word)].rstrip()
                stripped = True
                break
        if stripped:
            continue
        # noexcept (expr), __attribute__ ((...)) after the parameters
        match = re.search(r"\b(noexcept|__attribute__|G_GNUC_[A-Z_]+)\s*$", text)
        if match:
            text = text[:match.start()].rstrip()
            continue
        break
    if not text.endswith(")"):
        return None
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            depth -= 1
            if depth == 0:
                before = text[:i].rstrip()
                if re.search(r"\b(noexcept|__attribute__|decltype)$", before):
                    return function_name(before)
                match = re.search(r"((?:[A-Za-z_]\w*\s*(?:<[^<>]*>)?\s*::\s*)*"
                                  r"(?:operator\s*(?:\(\s*\)|\[\s*\]|[^\w\s(]+|\w+)|~?[A-Za-z_]\w*))$",
                                  before)
                if not match:
                    return None
                name = re.sub(r"\s+", "", match.group(1))
                if name in ("if", "for", "while", "switch", "catch", "return", "sizeof"):
                    return None
                return name
    return None


def functions(path):
    """(name, line, lines) of every function defined in the file."""
    with open(path, encoding="utf-8", errors="replace") as source:
        code = blank_code(source.read())
    found = []
    # Each open brace: its kind ("scope", "function", "init" for a brace-initialised member of
    # an initialiser list, "other") and, for a function, its name and line.
    stack = []
    header = []
    line = 1
    paren_depth = 0
    inside_function = 0  # open braces of the function being read, 0 outside one
    for c in code:
        if c == "\n":
            line += 1
        if inside_function:
            if c == "{":
                inside_function += 1
            elif c == "}":
                inside_function -= 1
                if inside_function == 0:
                    name, start = stack.pop()[1:]
                    found.append((name, start, line - start + 1))
                    header = []
            continue
        if stack and stack[-1][0] in ("init", "other"):
            # Inside an initialiser: its braces nest, nothing in it is a function.
            if c == "{":
                stack.append((stack[-1][0], None, line))
            elif c == "}":
                kind = stack.pop()[0]
                if kind == "init":
                    header.append("}")
                elif not stack or stack[-1][0] == "scope":
                    header = []
            elif stack[-1][0] == "init":
                header.append(c)
            continue
        if c == "(":
            paren_depth += 1
        elif c == ")":
            paren_depth -= 1
        if c == ";" and paren_depth == 0:
            header = []
            continue
        if c == "}" and paren_depth == 0:
            if stack:
                stack.pop()
            header = []
            continue
        if c != "{" or paren_depth != 0:
            header.append(c)
            continue
        text = ACCESS_LABEL.sub(" ", "".join(header)).strip()
        colon = top_level_colon(text)
        declarator = text if colon < 0 else text[:colon]
        last = text.rstrip()[-1:] if text.strip() else ""
        if colon >= 0 and (last.isalnum() or last in "_>"):
            stack.append(("init", None, line))
            header.append("{")
            continue
        name = None if has_assignment(text) else function_name(declarator)
        if name is None:
            # class Foo : Base {, namespace {, extern "C" {, enum class E : int {, but not
            # struct Foo *foo (...) { (a function returning a struct, handled above).
            scope = SCOPE_KEYWORDS.search(text) or re.search(r'\bextern\s*"', text)
            stack.append(("scope" if scope and not has_assignment(text) else "other", None, line))
            header = []
            continue
        stack.append(("function", name, line))
        inside_function = 1
        header = []
    return found


def main():
    root = sys.argv[1]
    problems = []
    count = 0
    for directory, _, names in sorted(os.walk(os.path.join(root, "gst"))):
        for file_name in sorted(names):
            if not file_name.endswith((".cpp", ".h", ".c")):
                continue
            path = os.path.join(directory, file_name)
            for name, line, lines in functions(path):
                count += 1
                if lines > LIMIT and not name.endswith(ALLOWED_SUFFIXES):
                    problems.append(f"{name} {os.path.relpath(path, root)}:{line} {lines}")
    for problem in problems:
        print("check-function-length: " + problem)
    print(f"check-function-length: {count} functions in gst/, {len(problems)} over {LIMIT} lines "
          f"(property blocks allowed: class_init, install_properties)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
