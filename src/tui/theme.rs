//! Colours. The UI draws with a small semantic palette; the config's
//! `[theme]` table maps each role to any colour the terminal has (and may
//! add attributes such as bold), `name = "light"` or `"high-contrast"`
//! starts from a built-in theme (assets/themes/, read by the config like
//! the user's table), and `NO_COLOR` takes colour out altogether. All of it
//! is applied to the finished frame, so every pane follows without knowing
//! about themes.

use std::str::FromStr;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};

/// The roles `[theme]` can set, with the role and what it marks.
pub const ROLES: [(&str, Role, &str); 9] = [
    ("accent", Role::Accent, "focused pane, keys, types"),
    ("ok", Role::Ok, "connected, valid, read-only"),
    ("error", Role::Error, "failed, errors, destructive"),
    ("warn", Role::Warn, "pending, findings, messages"),
    ("muted", Role::Muted, "hints, secondary text"),
    ("link", Role::Link, "links, outgoing frames"),
    ("media", Role::Media, "images and audio"),
    (
        "selected",
        Role::Selected,
        "the selected row or field, the cursor",
    ),
    (
        "alert",
        Role::Alert,
        "what must not be missed: a malformed frame",
    ),
];

/// The attributes a `[theme]` value may name.
const ATTRIBUTES: [(&str, Modifier); 5] = [
    ("bold", Modifier::BOLD),
    ("dim", Modifier::DIM),
    ("italic", Modifier::ITALIC),
    ("underlined", Modifier::UNDERLINED),
    ("reversed", Modifier::REVERSED),
];

/// What a piece of the screen is, for its colour. Panes name roles, never
/// colours; each role is drawn in its base colour ([`Role::color`]) and the
/// [`Theme`] maps the base colours of the finished frame to the user's
/// (`[theme]`) or takes colour out (`NO_COLOR`), so content prepared ahead
/// (a result's JSON colours) follows the theme too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The focused pane, keys, types.
    Accent,
    /// Connected, valid, read-only.
    Ok,
    /// Failed, errors, destructive.
    Error,
    /// Pending, findings, messages.
    Warn,
    /// Hints, secondary text.
    Muted,
    /// Links, outgoing frames.
    Link,
    /// Images and audio.
    Media,
    /// The selected row of a list or field.
    Selected,
    /// What must not be missed: a malformed frame, an error badge.
    Alert,
}

impl Role {
    /// The colour this role is drawn in before the theme applies.
    pub const fn color(self) -> Color {
        match self {
            Role::Accent => Color::Cyan,
            Role::Ok => Color::Green,
            Role::Error | Role::Alert => Color::Red,
            Role::Warn => Color::Yellow,
            Role::Muted => Color::DarkGray,
            Role::Link => Color::Blue,
            Role::Media => Color::Magenta,
            Role::Selected => Color::Reset,
        }
    }

    /// The role's style: its colour (white on red for an alert; reversed
    /// for the selection).
    pub fn style(self) -> Style {
        match self {
            Role::Selected => Style::default().add_modifier(Modifier::REVERSED),
            Role::Alert => Style::default().fg(Color::White).bg(Color::Red),
            r => Style::default().fg(r.color()),
        }
    }
}

/// How a role is drawn: what a `[theme]` value says.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Look {
    fg: Option<Color>,
    bg: Option<Color>,
    add: Modifier,
}

impl Look {
    /// `"light-cyan bold"`, `"black on light-yellow"`, `"reversed"`: a
    /// colour, `on` and a background colour, attributes, in any order.
    fn parse(role: &str, value: &str) -> Result<Look, String> {
        let colour = |word: &str| {
            Color::from_str(word).map_err(|_| {
                let names: Vec<&str> = ATTRIBUTES.iter().map(|a| a.0).collect();
                format!(
                    "[theme] {role}: {word:?} is not a colour or an attribute; write a colour name \
                     (\"red\", \"light-blue\", \"dark-gray\"), \"#rrggbb\" or an index 0-255, \
                     optionally `on` and a background colour, and attributes ({}), \
                     e.g. \"light-cyan bold\" or \"black on yellow\"",
                    names.join(", ")
                )
            })
        };
        let mut look = Look::default();
        let mut words = value.split_whitespace();
        while let Some(word) = words.next() {
            if word.eq_ignore_ascii_case("on") {
                let Some(bg) = words.next() else {
                    return Err(format!(
                        "[theme] {role}: {value:?} ends with `on`; write the background colour after it"
                    ));
                };
                look.bg = Some(colour(bg)?);
            } else if let Some((_, m)) = ATTRIBUTES
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(word))
            {
                look.add |= *m;
            } else if look.fg.is_some() {
                return Err(format!(
                    "[theme] {role}: {value:?} names two colours; write `on` before the background"
                ));
            } else {
                look.fg = Some(colour(word)?);
            }
        }
        if look == Look::default() {
            return Err(format!("[theme] {role}: write a colour or an attribute"));
        }
        Ok(look)
    }
}

/// How the palette is drawn: the `[theme]` roles (a built-in theme's, then
/// the user's) and `NO_COLOR`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Theme {
    /// (drawn as, shown as) for each colour role that changes how it looks.
    colours: Vec<(Color, Look)>,
    /// The selection, when it is not plain reverse video.
    selected: Option<Look>,
    /// The alert, when it is not white on red.
    alert: Option<Look>,
    no_color: bool,
}

impl Theme {
    /// From the config's `[theme]` entries, in order (a later entry for a
    /// role replaces an earlier one: the user's roles come after the
    /// built-in theme's); errors name the role or colour.
    pub fn from_config(entries: &[(String, String)], no_color: bool) -> Result<Theme, String> {
        let mut theme = Theme {
            no_color,
            ..Theme::default()
        };
        for (name, value) in entries {
            let Some((_, role, _)) = ROLES.iter().find(|(n, _, _)| n == name) else {
                let names: Vec<&str> = ROLES.iter().map(|r| r.0).collect();
                let hint = names
                    .iter()
                    .map(|n| (strsim::jaro_winkler(n, name), n))
                    .filter(|(score, _)| *score > 0.8)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, n)| format!("; did you mean `{n}`?"))
                    .unwrap_or_else(|| format!("; the roles are: {}", names.join(", ")));
                return Err(format!("unknown colour role `{name}` in [theme]{hint}"));
            };
            let look = Look::parse(name, value)?;
            match role {
                // Plain reverse video is how the selection is drawn anyway.
                Role::Selected => {
                    theme.selected = (look.fg.is_some()
                        || look.bg.is_some()
                        || !(look.add - Modifier::REVERSED).is_empty())
                    .then_some(look);
                }
                // White on red is how the alert is drawn anyway.
                Role::Alert => {
                    let same = look.fg.is_none_or(|c| c == Color::White)
                        && look.bg.is_none_or(|c| c == Color::Red)
                        && look.add.is_empty();
                    theme.alert = (!same).then_some(look);
                }
                role => {
                    if look.bg.is_some() {
                        return Err(format!(
                            "[theme] {name}: only `selected` and `alert` take a background (`on …`); \
                             write a colour and attributes, e.g. \"light-cyan bold\""
                        ));
                    }
                    let base = role.color();
                    theme.colours.retain(|(c, _)| *c != base);
                    if look.fg.is_some_and(|c| c != base) || !look.add.is_empty() {
                        theme.colours.push((base, look));
                    }
                }
            }
        }
        Ok(theme)
    }

    pub fn no_color(&self) -> bool {
        self.no_color
    }

    fn map(&self, c: Color) -> Color {
        if self.no_color {
            return Color::Reset;
        }
        self.colours
            .iter()
            .find(|(from, _)| *from == c)
            .and_then(|(_, look)| look.fg)
            .unwrap_or(c)
    }

    /// The attributes the theme adds to text drawn in `c`.
    fn attributes(&self, c: Color) -> Modifier {
        self.colours
            .iter()
            .find(|(from, _)| *from == c)
            .map(|(_, look)| look.add)
            .unwrap_or_else(Modifier::empty)
    }

    /// Apply to a finished frame.
    pub fn apply(&self, buf: &mut Buffer) {
        if *self == Theme::default() {
            return;
        }
        let alert = Role::Alert.style();
        for cell in buf.content.iter_mut() {
            let (fg, bg) = (cell.fg, cell.bg);
            let mut modifier = cell.modifier | self.attributes(fg);
            cell.fg = self.map(fg);
            cell.bg = self.map(bg);
            if let Some(look) = self.alert
                && Some(fg) == alert.fg
                && Some(bg) == alert.bg
            {
                if !self.no_color {
                    cell.fg = look.fg.unwrap_or(cell.fg);
                    cell.bg = look.bg.unwrap_or(cell.bg);
                }
                modifier |= look.add;
            }
            if let Some(look) = self.selected
                && cell.modifier.contains(Modifier::REVERSED)
            {
                // Without colour, reverse video is what shows the selection.
                if !self.no_color {
                    if look.bg.is_some() {
                        modifier.remove(Modifier::REVERSED);
                    }
                    cell.fg = look.fg.unwrap_or(cell.fg);
                    cell.bg = look.bg.unwrap_or(cell.bg);
                }
                modifier |= look.add;
            }
            cell.modifier = modifier;
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    fn theme(entries: &[(&str, &str)]) -> Result<Theme, String> {
        let entries: Vec<(String, String)> = entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Theme::from_config(&entries, false)
    }

    #[test]
    fn roles_map_and_errors_name_the_fix() {
        let t = theme(&[("accent", "#ff8800"), ("error", "light-red")]).unwrap();
        assert_eq!(t.map(Color::Cyan), Color::Rgb(0xff, 0x88, 0x00));
        assert_eq!(t.map(Color::Red), Color::LightRed);
        assert_eq!(t.map(Color::Green), Color::Green);
        let e = theme(&[("acent", "red")]).unwrap_err();
        assert!(e.contains("did you mean `accent`"), "{e}");
        let e = theme(&[("ok", "greenish")]).unwrap_err();
        assert!(e.contains("is not a colour"), "{e}");
        let none = Theme::from_config(&[], true).unwrap();
        assert_eq!(none.map(Color::Cyan), Color::Reset);
    }

    #[test]
    fn values_name_a_colour_a_background_and_attributes() {
        assert_eq!(
            Look::parse("selected", "black on light-yellow bold").unwrap(),
            Look {
                fg: Some(Color::Black),
                bg: Some(Color::LightYellow),
                add: Modifier::BOLD,
            }
        );
        assert_eq!(
            Look::parse("accent", "Bold  UNDERLINED 75").unwrap(),
            Look {
                fg: Some(Color::Indexed(75)),
                bg: None,
                add: Modifier::BOLD | Modifier::UNDERLINED,
            }
        );
        for (value, says) in [
            ("red blue", "names two colours"),
            ("black on", "ends with `on`"),
            ("on purple-ish", "\"purple-ish\" is not a colour"),
            ("  ", "write a colour or an attribute"),
        ] {
            let e = Look::parse("alert", value).unwrap_err();
            assert!(e.contains(says), "{value:?}: {e}");
        }
        let e = theme(&[("ok", "green on black")]).unwrap_err();
        assert!(
            e.contains("only `selected` and `alert` take a background"),
            "{e}"
        );
    }

    #[test]
    fn a_later_entry_replaces_an_earlier_one_and_the_same_look_changes_nothing() {
        let t = theme(&[("warn", "bold"), ("warn", "130")]).unwrap();
        assert_eq!(t.map(Color::Yellow), Color::Indexed(130));
        assert_eq!(t.attributes(Color::Yellow), Modifier::empty());
        // Every role as it is drawn anyway: nothing to do.
        let same = theme(&[
            ("accent", "cyan"),
            ("muted", "dark-gray"),
            ("selected", "reversed"),
            ("alert", "white on red"),
        ])
        .unwrap();
        assert_eq!(same, Theme::default());
    }

    fn cell_buffer(style: Style) -> Buffer {
        let mut buf = Buffer::empty(ratatui::layout::Rect::new(0, 0, 2, 1));
        buf.set_string(0, 0, "ab", style);
        buf
    }

    #[test]
    fn the_selection_and_the_alert_take_the_theme_s_look() {
        let t = theme(&[
            ("selected", "black on light-yellow bold"),
            ("alert", "yellow on blue"),
            ("accent", "light-cyan bold"),
        ])
        .unwrap();
        let mut buf = cell_buffer(Role::Selected.style());
        t.apply(&mut buf);
        let c = &buf.content[0];
        assert_eq!(
            (c.fg, c.bg, c.modifier),
            (Color::Black, Color::LightYellow, Modifier::BOLD)
        );
        let mut buf = cell_buffer(Role::Alert.style());
        t.apply(&mut buf);
        let c = &buf.content[0];
        assert_eq!((c.fg, c.bg), (Color::Yellow, Color::Blue));
        let mut buf = cell_buffer(Role::Accent.style());
        t.apply(&mut buf);
        let c = &buf.content[0];
        assert_eq!((c.fg, c.modifier), (Color::LightCyan, Modifier::BOLD));
        // Without colour the selection stays reversed and the attributes stay.
        let mut entries = vec![(
            "selected".to_string(),
            "black on light-yellow bold".to_string(),
        )];
        entries.push(("accent".into(), "light-cyan bold".into()));
        let t = Theme::from_config(&entries, true).unwrap();
        let mut buf = cell_buffer(Role::Selected.style());
        t.apply(&mut buf);
        let c = &buf.content[0];
        assert_eq!(
            (c.fg, c.bg, c.modifier),
            (
                Color::Reset,
                Color::Reset,
                Modifier::REVERSED | Modifier::BOLD
            )
        );
        let mut buf = cell_buffer(Role::Accent.style());
        t.apply(&mut buf);
        assert_eq!(
            (buf.content[0].fg, buf.content[0].modifier),
            (Color::Reset, Modifier::BOLD)
        );
    }
}
