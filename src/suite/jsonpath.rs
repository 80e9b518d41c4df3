//! JSONPath (RFC 9535), the part a test file needs: a path selects nodes
//! of a result for an assertion or a capture.
//!
//! - `$` the root; `.name`, `['name']`, `["name"]` a member;
//! - `[0]`, `[-1]` an element (negative counts from the end);
//! - `[1:3]`, `[:2]`, `[::2]` a slice; `[*]`, `.*` every child;
//! - `['a','b']`, `[0,2]` a union;
//! - `..name`, `..*`, `..[0]` every descendant's;
//! - `[?@.type == 'text']` a filter: `@` the child tested, comparisons
//!   `== != < <= > >=` against a literal (`'text'`, `"text"`, numbers,
//!   `true`, `false`, `null`) or another path (`@.a == $.b`), or a path
//!   alone for "has it"; `!`, `&&`, `||` and parentheses combine them.
//!
//! Functions (`length()`, `match()` …) are not taken: the assertions say
//! those (`length`, `matches`).

use serde_json::Value;

/// A parsed path.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    segments: Vec<Segment>,
    text: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    /// `.x`, `[…]`: the selectors applied to each node.
    Child(Vec<Selector>),
    /// `..x`, `..[…]`: the selectors applied to each node and every
    /// descendant of it.
    Descendant(Vec<Selector>),
}

#[derive(Debug, Clone, PartialEq)]
enum Selector {
    Name(String),
    Index(i64),
    Slice(Option<i64>, Option<i64>, Option<i64>),
    Wildcard,
    Filter(Box<Filter>),
}

#[derive(Debug, Clone, PartialEq)]
enum Filter {
    Or(Box<Filter>, Box<Filter>),
    And(Box<Filter>, Box<Filter>),
    Not(Box<Filter>),
    /// A path alone: true when it selects something.
    Exists(Operand),
    Compare(Operand, Op, Operand),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, PartialEq)]
enum Operand {
    /// `@…` (relative) or `$…` (absolute), singular or not.
    Path {
        relative: bool,
        segments: Vec<Segment>,
    },
    Literal(Value),
}

/// A path that could not be read: where (a character offset) and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("JSONPath {path:?}, at character {at}: {message}")]
pub struct PathError {
    pub path: String,
    pub at: usize,
    pub message: String,
}

impl Path {
    /// Parse `text`, which starts with `$`.
    pub fn parse(text: &str) -> Result<Path, PathError> {
        let mut p = Parser {
            chars: text.chars().collect(),
            at: 0,
            text,
            depth: 0,
        };
        p.skip_space();
        if !p.eat('$') {
            return Err(
                p.error("a JSONPath starts with `$` (the result), like `$.content[0].text`")
            );
        }
        let segments = p.segments()?;
        p.skip_space();
        if p.at < p.chars.len() {
            return Err(p.error(&format!("unexpected `{}`", p.chars[p.at])));
        }
        Ok(Path {
            segments,
            text: text.trim().to_string(),
        })
    }

    /// The path as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the path selects at most one node (members and indices
    /// only): its value is that node, not a list of nodes.
    pub fn is_singular(&self) -> bool {
        singular(&self.segments)
    }

    /// The nodes selected in `root`, in document order.
    pub fn select<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        run(&self.segments, root, root)
    }

    /// What the path gives: the node of a singular path (`None` when
    /// absent), or the array of the nodes selected (empty when none).
    pub fn value(&self, root: &Value) -> Option<Value> {
        let nodes = self.select(root);
        if self.is_singular() {
            nodes.first().map(|v| (*v).clone())
        } else {
            Some(Value::Array(nodes.into_iter().cloned().collect()))
        }
    }

    /// Each concrete location the path selects in `root`, as a normalized
    /// path (`$['a'][0]`): for replacing what it selects.
    pub fn locations(&self, root: &Value) -> Vec<Vec<Step>> {
        let mut out = Vec::new();
        locate(&self.segments, root, root, &mut Vec::new(), &mut out);
        out
    }
}

/// One step of a concrete location: a member or an element.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Member(String),
    Element(usize),
}

/// Replace the node at `location` in `root` with `with`; false when it is
/// not there.
pub fn replace(root: &mut Value, location: &[Step], with: Value) -> bool {
    let mut node = root;
    for step in location {
        let next = match (step, node) {
            (Step::Member(k), Value::Object(m)) => m.get_mut(k),
            (Step::Element(i), Value::Array(a)) => a.get_mut(*i),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => return false,
        }
    }
    *node = with;
    true
}

fn singular(segments: &[Segment]) -> bool {
    segments.iter().all(|s| match s {
        Segment::Child(sel) => {
            sel.len() == 1 && matches!(sel[0], Selector::Name(_) | Selector::Index(_))
        }
        Segment::Descendant(_) => false,
    })
}

fn run<'a>(segments: &[Segment], node: &'a Value, root: &'a Value) -> Vec<&'a Value> {
    let mut nodes = vec![node];
    for seg in segments {
        let mut next = Vec::new();
        for n in nodes {
            match seg {
                Segment::Child(sel) => {
                    for s in sel {
                        apply(s, n, root, &mut next);
                    }
                }
                Segment::Descendant(sel) => {
                    let mut all = Vec::new();
                    descendants(n, &mut all);
                    for d in all {
                        for s in sel {
                            apply(s, d, root, &mut next);
                        }
                    }
                }
            }
        }
        nodes = next;
    }
    nodes
}

/// `node` and every node under it, in document order.
fn descendants<'a>(node: &'a Value, out: &mut Vec<&'a Value>) {
    out.push(node);
    match node {
        Value::Array(a) => a.iter().for_each(|v| descendants(v, out)),
        Value::Object(m) => m.values().for_each(|v| descendants(v, out)),
        _ => {}
    }
}

/// The indices of `len` elements a slice selects, in order.
fn slice_indices(
    len: usize,
    start: Option<i64>,
    end: Option<i64>,
    step: Option<i64>,
) -> Vec<usize> {
    let len = len as i64;
    let step = step.unwrap_or(1);
    if step == 0 {
        return Vec::new();
    }
    let norm = |i: i64| if i < 0 { len + i } else { i };
    let mut out = Vec::new();
    if step > 0 {
        let lo = norm(start.unwrap_or(0)).clamp(0, len);
        let hi = norm(end.unwrap_or(len)).clamp(0, len);
        let mut i = lo;
        while i < hi {
            out.push(i as usize);
            match i.checked_add(step) {
                Some(next) => i = next,
                None => break,
            }
        }
    } else {
        let hi = norm(start.unwrap_or(len - 1)).clamp(-1, len - 1);
        let lo = end.map_or(-1, |e| norm(e).clamp(-1, len - 1));
        let mut i = hi;
        while i > lo {
            out.push(i as usize);
            match i.checked_add(step) {
                Some(next) => i = next,
                None => break,
            }
        }
    }
    out
}

fn index(len: usize, i: i64) -> Option<usize> {
    let i = if i < 0 { len as i64 + i } else { i };
    (0..len as i64).contains(&i).then_some(i as usize)
}

fn apply<'a>(sel: &Selector, node: &'a Value, root: &'a Value, out: &mut Vec<&'a Value>) {
    match (sel, node) {
        (Selector::Name(k), Value::Object(m)) => out.extend(m.get(k)),
        (Selector::Index(i), Value::Array(a)) => out.extend(index(a.len(), *i).map(|i| &a[i])),
        (Selector::Slice(s, e, st), Value::Array(a)) => out.extend(
            slice_indices(a.len(), *s, *e, *st)
                .into_iter()
                .map(|i| &a[i]),
        ),
        (Selector::Wildcard, Value::Array(a)) => out.extend(a.iter()),
        (Selector::Wildcard, Value::Object(m)) => out.extend(m.values()),
        (Selector::Filter(f), Value::Array(a)) => out.extend(a.iter().filter(|v| test(f, v, root))),
        (Selector::Filter(f), Value::Object(m)) => {
            out.extend(m.values().filter(|v| test(f, v, root)))
        }
        _ => {}
    }
}

fn locate(
    segments: &[Segment],
    node: &Value,
    root: &Value,
    at: &mut Vec<Step>,
    out: &mut Vec<Vec<Step>>,
) {
    let Some((seg, rest)) = segments.split_first() else {
        out.push(at.clone());
        return;
    };
    let sel = match seg {
        Segment::Child(sel) | Segment::Descendant(sel) => sel,
    };
    // Each child of `node` a selector picks, with its step.
    let mut picked: Vec<(Step, &Value)> = Vec::new();
    for s in sel {
        match (s, node) {
            (Selector::Name(k), Value::Object(m)) => {
                if let Some(v) = m.get(k) {
                    picked.push((Step::Member(k.clone()), v));
                }
            }
            (Selector::Index(i), Value::Array(a)) => {
                if let Some(i) = index(a.len(), *i) {
                    picked.push((Step::Element(i), &a[i]));
                }
            }
            (Selector::Slice(s, e, st), Value::Array(a)) => {
                for i in slice_indices(a.len(), *s, *e, *st) {
                    picked.push((Step::Element(i), &a[i]));
                }
            }
            (Selector::Wildcard, Value::Array(a)) => {
                picked.extend(a.iter().enumerate().map(|(i, v)| (Step::Element(i), v)))
            }
            (Selector::Wildcard, Value::Object(m)) => {
                picked.extend(m.iter().map(|(k, v)| (Step::Member(k.clone()), v)))
            }
            (Selector::Filter(f), Value::Array(a)) => picked.extend(
                a.iter()
                    .enumerate()
                    .filter(|(_, v)| test(f, v, root))
                    .map(|(i, v)| (Step::Element(i), v)),
            ),
            (Selector::Filter(f), Value::Object(m)) => picked.extend(
                m.iter()
                    .filter(|(_, v)| test(f, v, root))
                    .map(|(k, v)| (Step::Member(k.clone()), v)),
            ),
            _ => {}
        }
    }
    for (step, child) in picked {
        at.push(step);
        locate(rest, child, root, at, out);
        at.pop();
    }
    if let Segment::Descendant(_) = seg {
        // The same segment again, one level down.
        let children: Vec<(Step, &Value)> = match node {
            Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, v)| (Step::Element(i), v))
                .collect(),
            Value::Object(m) => m
                .iter()
                .map(|(k, v)| (Step::Member(k.clone()), v))
                .collect(),
            _ => Vec::new(),
        };
        for (step, child) in children {
            at.push(step);
            locate(segments, child, root, at, out);
            at.pop();
        }
    }
}

fn test(f: &Filter, current: &Value, root: &Value) -> bool {
    match f {
        Filter::Or(a, b) => test(a, current, root) || test(b, current, root),
        Filter::And(a, b) => test(a, current, root) && test(b, current, root),
        Filter::Not(a) => !test(a, current, root),
        Filter::Exists(op) => !operand(op, current, root).is_empty(),
        Filter::Compare(a, op, b) => {
            let (a, b) = (operand(a, current, root), operand(b, current, root));
            // RFC 9535: a comparison takes singular values; nothing
            // compares equal only to nothing.
            let (a, b) = (a.first().copied(), b.first().copied());
            compare(a, *op, b)
        }
    }
}

fn operand<'a>(op: &'a Operand, current: &'a Value, root: &'a Value) -> Vec<&'a Value> {
    match op {
        Operand::Literal(v) => vec![v],
        Operand::Path { relative, segments } => {
            run(segments, if *relative { current } else { root }, root)
        }
    }
}

fn compare(a: Option<&Value>, op: Op, b: Option<&Value>) -> bool {
    let eq = match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => json_eq(x, y),
        _ => false,
    };
    match op {
        Op::Eq => eq,
        Op::Ne => !eq,
        Op::Lt => less(a, b),
        Op::Gt => less(b, a),
        Op::Le => less(a, b) || eq,
        Op::Ge => less(b, a) || eq,
    }
}

/// Equality as JSON means it: `1` equals `1.0`.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                x == y
            } else if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                x == y
            } else if x.is_f64() || y.is_f64() {
                x.as_f64() == y.as_f64()
            } else {
                // One above i64, the other negative.
                false
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn less(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => {
            matches!((x.as_f64(), y.as_f64()), (Some(x), Some(y)) if x < y)
        }
        (Some(Value::String(x)), Some(Value::String(y))) => x < y,
        _ => false,
    }
}

/// How deep filters, `!` and parentheses may nest: deeper is surely a
/// mistake, and would overflow the stack.
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    chars: Vec<char>,
    at: usize,
    text: &'a str,
    /// The nesting of filters, `!` and parentheses so far.
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> PathError {
        PathError {
            path: self.text.to_string(),
            at: self.at + 1,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn eat_str(&mut self, s: &str) -> bool {
        let n = s.chars().count();
        if self.chars.len() >= self.at + n
            && self.chars[self.at..self.at + n]
                .iter()
                .copied()
                .eq(s.chars())
        {
            self.at += n;
            true
        } else {
            false
        }
    }

    fn skip_space(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c == ' ' || c == '\t' || c == '\n' || c == '\r')
        {
            self.at += 1;
        }
    }

    /// Segments until something that is not one (the end, or what a
    /// filter goes on with).
    fn segments(&mut self) -> Result<Vec<Segment>, PathError> {
        let mut out = Vec::new();
        loop {
            // Spaces are allowed before a segment (RFC 9535), but a filter
            // reads `@.a == 1`: a space then `=` is not a segment.
            let save = self.at;
            self.skip_space();
            match self.peek() {
                Some('.') if self.chars.get(self.at + 1) == Some(&'.') => {
                    self.at += 2;
                    let sel = match self.peek() {
                        Some('[') => self.bracket()?,
                        Some('*') => {
                            self.at += 1;
                            vec![Selector::Wildcard]
                        }
                        _ => vec![Selector::Name(self.member_name()?)],
                    };
                    out.push(Segment::Descendant(sel));
                }
                Some('.') => {
                    self.at += 1;
                    if self.eat('*') {
                        out.push(Segment::Child(vec![Selector::Wildcard]));
                    } else {
                        out.push(Segment::Child(vec![Selector::Name(self.member_name()?)]));
                    }
                }
                Some('[') => {
                    let sel = self.bracket()?;
                    out.push(Segment::Child(sel));
                }
                _ => {
                    self.at = save;
                    return Ok(out);
                }
            }
        }
    }

    fn member_name(&mut self) -> Result<String, PathError> {
        let start = self.at;
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || c == '_' || c == '-' || c as u32 >= 0x80 {
                self.at += 1;
            } else {
                break;
            }
        }
        if self.at == start {
            return Err(self.error(
                "a member name after `.` (letters, digits, `_`, `-`); for other names write `['name']`",
            ));
        }
        Ok(self.chars[start..self.at].iter().collect())
    }

    fn bracket(&mut self) -> Result<Vec<Selector>, PathError> {
        // At `[`.
        self.at += 1;
        let mut out = Vec::new();
        loop {
            self.skip_space();
            out.push(self.selector()?);
            self.skip_space();
            if self.eat(']') {
                return Ok(out);
            }
            if !self.eat(',') {
                return Err(self.error("expected `,` or `]`"));
            }
        }
    }

    fn selector(&mut self) -> Result<Selector, PathError> {
        match self.peek() {
            Some('\'') | Some('"') => Ok(Selector::Name(self.string()?)),
            Some('*') => {
                self.at += 1;
                Ok(Selector::Wildcard)
            }
            Some('?') => {
                self.at += 1;
                Ok(Selector::Filter(Box::new(self.or()?)))
            }
            Some(c) if c == '-' || c == ':' || c.is_ascii_digit() => {
                let start = if c == ':' {
                    None
                } else {
                    Some(self.integer()?)
                };
                self.skip_space();
                if !self.eat(':') {
                    return start
                        .map(Selector::Index)
                        .ok_or_else(|| self.error("expected an index"));
                }
                self.skip_space();
                let end = self.optional_integer()?;
                self.skip_space();
                let step = if self.eat(':') {
                    self.skip_space();
                    self.optional_integer()?
                } else {
                    None
                };
                Ok(Selector::Slice(start, end, step))
            }
            _ => Err(self.error(
                "expected a selector: 'name', an index, a slice like 1:3, * or a filter ?@.x == 1",
            )),
        }
    }

    fn optional_integer(&mut self) -> Result<Option<i64>, PathError> {
        match self.peek() {
            Some(c) if c == '-' || c.is_ascii_digit() => Ok(Some(self.integer()?)),
            _ => Ok(None),
        }
    }

    fn integer(&mut self) -> Result<i64, PathError> {
        let start = self.at;
        self.eat('-');
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        let s: String = self.chars[start..self.at].iter().collect();
        s.parse().map_err(|_| {
            self.at = start;
            self.error("expected an integer")
        })
    }

    fn string(&mut self) -> Result<String, PathError> {
        let quote = self.chars[self.at];
        self.at += 1;
        let mut s = String::new();
        loop {
            match self.peek() {
                None => return Err(self.error(&format!("a string is not closed with {quote}"))),
                Some(c) if c == quote => {
                    self.at += 1;
                    return Ok(s);
                }
                Some('\\') => {
                    self.at += 1;
                    let c = self
                        .peek()
                        .ok_or_else(|| self.error("a string ends in `\\`"))?;
                    self.at += 1;
                    s.push(match c {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        'b' => '\u{8}',
                        'f' => '\u{c}',
                        'u' => {
                            let hex: String = self
                                .chars
                                .get(self.at..self.at + 4)
                                .map(|h| h.iter().collect())
                                .unwrap_or_default();
                            let code = u32::from_str_radix(&hex, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or_else(|| self.error("`\\u` takes four hex digits"))?;
                            self.at += 4;
                            code
                        }
                        other => other,
                    });
                }
                Some(c) => {
                    self.at += 1;
                    s.push(c);
                }
            }
        }
    }

    fn or(&mut self) -> Result<Filter, PathError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(&format!("filters nest more than {MAX_DEPTH} deep")));
        }
        let r = self.or_inner();
        self.depth -= 1;
        r
    }

    fn or_inner(&mut self) -> Result<Filter, PathError> {
        let mut left = self.and()?;
        loop {
            self.skip_space();
            if self.eat_str("||") {
                let right = self.and()?;
                left = Filter::Or(Box::new(left), Box::new(right));
            } else {
                return Ok(left);
            }
        }
    }

    fn and(&mut self) -> Result<Filter, PathError> {
        let mut left = self.unary()?;
        loop {
            self.skip_space();
            if self.eat_str("&&") {
                let right = self.unary()?;
                left = Filter::And(Box::new(left), Box::new(right));
            } else {
                return Ok(left);
            }
        }
    }

    fn unary(&mut self) -> Result<Filter, PathError> {
        self.skip_space();
        if self.peek() == Some('!') && self.chars.get(self.at + 1) != Some(&'=') {
            self.at += 1;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self.error(&format!("`!` nests more than {MAX_DEPTH} deep")));
            }
            let inner = self.unary();
            self.depth -= 1;
            return Ok(Filter::Not(Box::new(inner?)));
        }
        if self.eat('(') {
            let inner = self.or()?;
            self.skip_space();
            if !self.eat(')') {
                return Err(self.error("expected `)`"));
            }
            return Ok(inner);
        }
        let left = self.operand()?;
        self.skip_space();
        let op = if self.eat_str("==") {
            Op::Eq
        } else if self.eat_str("!=") {
            Op::Ne
        } else if self.eat_str("<=") {
            Op::Le
        } else if self.eat_str(">=") {
            Op::Ge
        } else if self.eat('<') {
            Op::Lt
        } else if self.eat('>') {
            Op::Gt
        } else {
            return match left {
                Operand::Path { .. } => Ok(Filter::Exists(left)),
                Operand::Literal(_) => {
                    Err(self.error("a literal alone is no test: compare it, like @.x == 1"))
                }
            };
        };
        self.skip_space();
        let right = self.operand()?;
        Ok(Filter::Compare(left, op, right))
    }

    fn operand(&mut self) -> Result<Operand, PathError> {
        self.skip_space();
        match self.peek() {
            Some('@') | Some('$') => {
                let relative = self.chars[self.at] == '@';
                self.at += 1;
                Ok(Operand::Path {
                    relative,
                    segments: self.segments()?,
                })
            }
            Some('\'') | Some('"') => Ok(Operand::Literal(Value::String(self.string()?))),
            Some(c) if c == '-' || c.is_ascii_digit() => {
                let start = self.at;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
                {
                    self.at += 1;
                }
                let s: String = self.chars[start..self.at].iter().collect();
                serde_json::from_str::<Value>(&s)
                    .ok()
                    .filter(Value::is_number)
                    .map(Operand::Literal)
                    .ok_or_else(|| {
                        self.at = start;
                        self.error("expected a number")
                    })
            }
            _ => {
                for (word, v) in [
                    ("true", Value::Bool(true)),
                    ("false", Value::Bool(false)),
                    ("null", Value::Null),
                ] {
                    if self.eat_str(word) {
                        return Ok(Operand::Literal(v));
                    }
                }
                Err(self.error(
                    "expected @ (the item), $ (the result) or a literal ('text', 1, true, null)",
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sel(path: &str, v: &Value) -> Vec<Value> {
        Path::parse(path)
            .unwrap_or_else(|e| panic!("{e}"))
            .select(v)
            .into_iter()
            .cloned()
            .collect()
    }

    fn doc() -> Value {
        json!({
            "content": [
                {"type": "text", "text": "one"},
                {"type": "image", "data": "AAA", "mimeType": "image/png"},
                {"type": "text", "text": "two"}
            ],
            "structuredContent": {"city": "Paris", "temp": 21.5, "tags": ["a", "b", "c"], "odd key": 1},
            "isError": false
        })
    }

    #[test]
    fn members_indices_and_slices() {
        let d = doc();
        assert_eq!(sel("$.structuredContent.city", &d), vec![json!("Paris")]);
        assert_eq!(
            sel("$['structuredContent'][\"odd key\"]", &d),
            vec![json!(1)]
        );
        assert_eq!(sel("$.content[-1].text", &d), vec![json!("two")]);
        assert_eq!(sel("$.content[5]", &d), Vec::<Value>::new());
        assert_eq!(
            sel("$.structuredContent.tags[1:]", &d),
            vec![json!("b"), json!("c")]
        );
        assert_eq!(
            sel("$.structuredContent.tags[::-1]", &d),
            vec![json!("c"), json!("b"), json!("a")]
        );
        assert_eq!(
            sel("$.structuredContent.tags[0,2]", &d),
            vec![json!("a"), json!("c")]
        );
        assert_eq!(
            sel("$.content[*].type", &d),
            vec![json!("text"), json!("image"), json!("text")]
        );
        assert_eq!(sel("$", &d), vec![d.clone()]);
    }

    #[test]
    fn descendants_and_filters() {
        let d = doc();
        assert_eq!(sel("$..text", &d), vec![json!("one"), json!("two")]);
        assert_eq!(
            sel("$.content[?@.type == 'text'].text", &d),
            vec![json!("one"), json!("two")]
        );
        assert_eq!(sel("$.content[?@.mimeType].data", &d), vec![json!("AAA")]);
        assert_eq!(
            sel("$.content[?!@.mimeType && @.text != 'one'].text", &d),
            vec![json!("two")]
        );
        assert_eq!(sel("$.structuredContent[?@ > 20]", &d), vec![json!(21.5)]);
        assert_eq!(
            sel(
                "$.content[?(@.type == \"image\" || @.text == 'one')].type",
                &d
            ),
            vec![json!("text"), json!("image")]
        );
        // Filters compare with the root too.
        assert_eq!(
            sel("$.content[?@.text == $.content[2].text].text", &d),
            vec![json!("two")]
        );
    }

    #[test]
    fn singular_paths_give_a_node_others_a_list() {
        let d = doc();
        let p = Path::parse("$.structuredContent.temp").unwrap();
        assert!(p.is_singular());
        assert_eq!(p.value(&d), Some(json!(21.5)));
        assert_eq!(Path::parse("$.nope").unwrap().value(&d), None);
        let p = Path::parse("$.content[*].type").unwrap();
        assert!(!p.is_singular());
        assert_eq!(p.value(&d), Some(json!(["text", "image", "text"])));
        assert_eq!(Path::parse("$.nope[*]").unwrap().value(&d), Some(json!([])));
    }

    #[test]
    fn locations_replace_what_a_path_selects() {
        let mut d = json!({"a": [{"t": 1}, {"t": 2}], "b": {"t": 3}});
        let p = Path::parse("$..t").unwrap();
        let locs = p.locations(&d);
        assert_eq!(locs.len(), 3);
        for l in locs {
            assert!(replace(&mut d, &l, json!("x")));
        }
        assert_eq!(d, json!({"a": [{"t": "x"}, {"t": "x"}], "b": {"t": "x"}}));
    }

    #[test]
    fn errors_say_where() {
        let e = Path::parse("content[0]").unwrap_err();
        assert_eq!(e.at, 1);
        assert!(e.message.contains("starts with `$`"), "{e}");
        let e = Path::parse("$.content[0").unwrap_err();
        assert!(e.message.contains("`,` or `]`"), "{e}");
        let e = Path::parse("$.a[?1]").unwrap_err();
        assert!(e.message.contains("literal alone"), "{e}");
        let e = Path::parse("$.a b").unwrap_err();
        assert_eq!(e.at, 5, "{e}");
        assert!(Path::parse("$.a['x").is_err());
        // Nothing from a test file panics or overflows the stack.
        let deep = format!("$[?{}@.a]", "!".repeat(5000));
        assert!(Path::parse(&deep).unwrap_err().message.contains("nests"));
        let deep = format!("$[?{}@.a{}]", "(".repeat(5000), ")".repeat(5000));
        assert!(Path::parse(&deep).is_err());
        let nested = format!("$.a{}", "[?@.b".repeat(3000));
        assert!(Path::parse(&nested).is_err());
        let p = Path::parse("$[1::9223372036854775807]").unwrap();
        assert_eq!(
            p.select(&serde_json::json!([0, 1, 2])),
            vec![&serde_json::json!(1)]
        );
        let p = Path::parse("$[::-9223372036854775807]").unwrap();
        assert_eq!(
            p.select(&serde_json::json!([0, 1, 2])),
            vec![&serde_json::json!(2)]
        );
    }

    #[test]
    fn numbers_compare_as_json() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(!json_eq(&json!(1), &json!(1.5)));
        assert!(json_eq(&json!({"a": [1, 2]}), &json!({"a": [1.0, 2]})));
        assert!(!json_eq(&json!(u64::MAX), &json!(-1)));
    }
}
