fn main() {
    let _marker = toolnorm::Complete(());
}
