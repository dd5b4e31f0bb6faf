#include <string>
int count_vowels(const std::string& s) {
    int n = 0;
    for (char c : s)
        if (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u') ++n;
    return n;
}
