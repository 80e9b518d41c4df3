//! The typed readers of [`Parser`]: durations, counts, booleans,
//! strings, string arrays and tables of strings, each with an error that
//! points at the value's line and column. `value` is the item and the
//! span of its key.

use super::*;

impl Parser<'_> {
    pub(in crate::config) fn duration(
        &self,
        ctx: &str,
        key: &str,
        (item, key_span): (&Item, Option<Range<usize>>),
        allow_zero: bool,
    ) -> Result<Duration> {
        let span = item.span().or(key_span);
        let duration = match item.as_value() {
            Some(Value::Integer(integer)) => {
                let seconds = u64::try_from(*integer.value()).map_err(|_| {
                    self.error(
                        span.clone(),
                        format!(
                            "{ctx}`{key}` must not be negative, found {}",
                            self.written(&span)
                        ),
                    )
                })?;
                Duration::from_secs(seconds)
            }
            Some(Value::Float(float)) => {
                let seconds = *float.value();
                let problem = if seconds < 0.0 {
                    Some("must not be negative")
                } else if !seconds.is_finite() {
                    Some("must be a finite number of seconds")
                } else {
                    None
                };
                let duration = match problem {
                    Some(problem) => Err(problem),
                    None => Duration::try_from_secs_f64(seconds).map_err(|_| "is too large"),
                };
                duration.map_err(|problem| {
                    self.error(
                        span.clone(),
                        format!("{ctx}`{key}` {problem}, found {}", self.written(&span)),
                    )
                })?
            }
            _ => {
                return Err(self.error(
                    span,
                    format!(
                        "{ctx}`{key}` must be a number of seconds, found {}",
                        describe(item)
                    ),
                ));
            }
        };
        if duration.is_zero() && !allow_zero {
            return Err(self.error(span, format!("{ctx}`{key}` must be greater than zero")));
        }
        if duration > MAX_DURATION {
            return Err(self.error(
                span.clone(),
                format!(
                    "{ctx}`{key}` must be at most {} seconds (a week), found {}",
                    MAX_DURATION.as_secs(),
                    self.written(&span)
                ),
            ));
        }
        Ok(duration)
    }

    pub(in crate::config) fn count(
        &self,
        key: &str,
        (item, key_span): (&Item, Option<Range<usize>>),
        unit: &str,
    ) -> Result<usize> {
        let span = item.span().or(key_span);
        match item.as_value() {
            Some(Value::Integer(integer)) => {
                let count = *integer.value();
                usize::try_from(count).map_err(|_| {
                    let problem = if count < 0 {
                        "must not be negative"
                    } else {
                        "is too large"
                    };
                    let found = self.written(&span);
                    self.error(span, format!("`{key}` {problem}, found {found}"))
                })
            }
            _ => Err(self.error(
                span,
                format!(
                    "`{key}` must be a whole number of {unit}, found {}",
                    describe(item)
                ),
            )),
        }
    }

    pub(in crate::config) fn boolean(
        &self,
        ctx: &str,
        key: &str,
        (item, key_span): (&Item, Option<Range<usize>>),
    ) -> Result<bool> {
        item.as_bool().ok_or_else(|| {
            self.error(
                item.span().or(key_span),
                format!(
                    "{ctx}`{key}` must be true or false, found {}",
                    describe(item)
                ),
            )
        })
    }

    pub(in crate::config) fn string(
        &self,
        ctx: &str,
        key: &str,
        (item, key_span): (&Item, Option<Range<usize>>),
    ) -> Result<Raw> {
        match item.as_str() {
            Some(text) => Ok(Raw {
                text: text.to_owned(),
                span: item.span().or(key_span),
            }),
            None => Err(self.error(
                item.span().or(key_span),
                format!("{ctx}`{key}` must be a string, found {}", describe(item)),
            )),
        }
    }

    pub(in crate::config) fn non_empty_string(
        &self,
        ctx: &str,
        key: &str,
        value: (&Item, Option<Range<usize>>),
    ) -> Result<Raw> {
        let raw = self.string(ctx, key, value)?;
        if raw.text.is_empty() {
            return Err(self.error(raw.span, format!("{ctx}`{key}` must not be empty")));
        }
        Ok(raw)
    }

    pub(in crate::config) fn string_array(
        &self,
        ctx: &str,
        key: &str,
        (item, key_span): (&Item, Option<Range<usize>>),
    ) -> Result<Vec<Raw>> {
        let array = item.as_array().ok_or_else(|| {
            self.error(
                item.span().or(key_span.clone()),
                format!(
                    "{ctx}`{key}` must be an array of strings, found {}",
                    describe(item)
                ),
            )
        })?;
        array
            .iter()
            .enumerate()
            .map(|(index, element)| match element.as_str() {
                Some(text) => Ok(Raw {
                    text: text.to_owned(),
                    span: element.span(),
                }),
                None => Err(self.error(
                    element.span(),
                    format!(
                        "{ctx}`{key}` must be an array of strings, but element {} is {}",
                        index + 1,
                        describe_value(element)
                    ),
                )),
            })
            .collect()
    }

    /// A table of strings (`env`, `headers`), in file order; names are checked.
    pub(in crate::config) fn string_table(
        &self,
        ctx: &str,
        key: &str,
        (item, key_span): (&Item, Option<Range<usize>>),
    ) -> Result<Vec<(String, Raw)>> {
        let table = item.as_table_like().ok_or_else(|| {
            self.error(
                item.span().or(key_span.clone()),
                format!(
                    "{ctx}`{key}` must be a table of strings like {key} = {{ NAME = \"value\" }}, found {}",
                    describe(item)
                ),
            )
        })?;
        entries(table)
            .map(|(name, name_span, value)| {
                let name_ok = if key == "headers" {
                    is_header_name(name)
                } else {
                    !name.is_empty() && !name.contains(['=', '\0'])
                };
                if !name_ok {
                    let rule = if key == "headers" {
                        "use letters, digits and `-`"
                    } else {
                        "it must be non-empty and must not contain `=`"
                    };
                    return Err(self.error(
                        name_span,
                        format!("{ctx}\"{name}\" is not a valid name in `{key}`; {rule}"),
                    ));
                }
                let raw = self.string(ctx, &format!("{key}.{name}"), (value, name_span))?;
                if key == "headers" && raw.text.contains(['\r', '\n', '\0']) {
                    return Err(self.error(
                        raw.span,
                        format!("{ctx}header `{name}` must not contain line breaks"),
                    ));
                }
                Ok((name.to_owned(), raw))
            })
            .collect()
    }
}
