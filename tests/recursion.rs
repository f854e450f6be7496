mod common;
