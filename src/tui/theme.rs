//! Colours. The UI draws with a small semantic palette; the config's
//! `[theme]` table maps each role to any colour the terminal has, and
//! `NO_COLOR` takes colour out altogether. Both are applied to the finished
//! frame, so every pane follows without knowing about themes.

use std::str::FromStr;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};

/// The roles `[theme]` can recolour, with the colour each is drawn in
/// before the theme applies.
pub const ROLES: [(&str, Color, &str); 7] = [
    ("accent", Role::Accent.color(), "focused pane, keys, types"),
    ("ok", Role::Ok.color(), "connected, valid, read-only"),
    ("error", Role::Error.color(), "failed, errors, destructive"),
    ("warn", Role::Warn.color(), "pending, findings, messages"),
    ("muted", Role::Muted.color(), "hints, secondary text"),
    ("link", Role::Link.color(), "links, outgoing frames"),
    ("media", Role::Media.color(), "images and audio"),
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

/// How the palette is drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Theme {
    /// (drawn as, shown as) for each role the user changed.
    remap: Vec<(Color, Color)>,
    no_color: bool,
}

impl Theme {
    /// From the config's `[theme]` entries; errors name the role or colour.
    pub fn from_config(entries: &[(String, String)], no_color: bool) -> Result<Theme, String> {
        let mut remap = Vec::new();
        for (role, value) in entries {
            let Some((_, base, _)) = ROLES.iter().find(|(name, _, _)| name == role) else {
                let names: Vec<&str> = ROLES.iter().map(|r| r.0).collect();
                let hint = names
                    .iter()
                    .map(|n| (strsim::jaro_winkler(n, role), n))
                    .filter(|(score, _)| *score > 0.8)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, n)| format!("; did you mean `{n}`?"))
                    .unwrap_or_else(|| format!("; the roles are: {}", names.join(", ")));
                return Err(format!("unknown colour role `{role}` in [theme]{hint}"));
            };
            let color = Color::from_str(value).map_err(|_| {
                format!("[theme] {role}: {value:?} is not a colour; write a name (\"red\", \"light-blue\"), \"#rrggbb\" or an index 0-255")
            })?;
            remap.push((*base, color));
        }
        Ok(Theme { remap, no_color })
    }

    pub fn no_color(&self) -> bool {
        self.no_color
    }

    fn map(&self, c: Color) -> Color {
        if self.no_color {
            return Color::Reset;
        }
        self.remap
            .iter()
            .find(|(from, _)| *from == c)
            .map(|(_, to)| *to)
            .unwrap_or(c)
    }

    /// Apply to a finished frame.
    pub fn apply(&self, buf: &mut Buffer) {
        if !self.no_color && self.remap.is_empty() {
            return;
        }
        for cell in buf.content.iter_mut() {
            cell.fg = self.map(cell.fg);
            cell.bg = self.map(cell.bg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_map_and_errors_name_the_fix() {
        let t = Theme::from_config(
            &[
                ("accent".into(), "#ff8800".into()),
                ("error".into(), "light-red".into()),
            ],
            false,
        )
        .unwrap();
        assert_eq!(t.map(Color::Cyan), Color::Rgb(0xff, 0x88, 0x00));
        assert_eq!(t.map(Color::Red), Color::LightRed);
        assert_eq!(t.map(Color::Green), Color::Green);
        let e = Theme::from_config(&[("acent".into(), "red".into())], false).unwrap_err();
        assert!(e.contains("did you mean `accent`"), "{e}");
        let e = Theme::from_config(&[("ok".into(), "greenish".into())], false).unwrap_err();
        assert!(e.contains("is not a colour"), "{e}");
        let none = Theme::from_config(&[], true).unwrap();
        assert_eq!(none.map(Color::Cyan), Color::Reset);
    }
}
